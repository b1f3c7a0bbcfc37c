module example.com/hermetic

go 1.26
