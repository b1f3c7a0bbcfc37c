module example.com/incident2

go 1.26
