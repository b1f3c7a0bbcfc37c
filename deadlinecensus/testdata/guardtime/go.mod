module example.com/guardtime

go 1.26
