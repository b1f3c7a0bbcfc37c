module example.com/incident

go 1.26
