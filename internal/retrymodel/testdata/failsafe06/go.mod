module example.com/failsafe06

go 1.26

require github.com/failsafe-go/failsafe-go v0.6.9

require github.com/bits-and-blooms/bitset v1.14.3 // indirect
