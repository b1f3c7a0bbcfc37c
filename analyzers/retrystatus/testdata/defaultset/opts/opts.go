// Package opts holds a client's retry options and their defaults, which
// another package reads.
package opts

import "time"

// Options configure retries; callers may replace any of them.
type Options struct {
	MaxRetries int
	// RetryOn is written once here, by Default: what a retry reads unless
	// its caller replaces it.
	RetryOn []int
	Backoff time.Duration
}

// Default returns the options used when none are given. 400 and 413 do
// not pass on a second try.
func Default() Options {
	return Options{MaxRetries: 3, RetryOn: []int{400, 408, 413, 429, 500, 502, 503, 504}, Backoff: time.Second}
}

// Server holds only what a second try can fix: quiet where it is read.
type Server struct {
	RetryOn []int
}

func DefaultServer() Server {
	return Server{RetryOn: []int{429, 500, 502, 503, 504}}
}

// Preset is written twice, so no one set is its default: quiet.
type Preset struct {
	RetryOn []int
}

func Fast() Preset { return Preset{RetryOn: []int{400, 500}} }
func Slow() Preset { return Preset{RetryOn: []int{503}} }
