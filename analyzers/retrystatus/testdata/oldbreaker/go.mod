module example.com/oldbreaker

go 1.26

require github.com/sony/gobreaker v0.4.1
