module example.com/t

go 1.26
