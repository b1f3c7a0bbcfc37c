module example.com/variants

go 1.26.0
