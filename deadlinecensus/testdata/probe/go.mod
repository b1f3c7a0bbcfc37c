module example.com/probe

go 1.26
