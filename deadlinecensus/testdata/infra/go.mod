module example.com/infra

go 1.26
