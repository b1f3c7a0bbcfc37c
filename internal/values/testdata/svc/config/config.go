// Package config holds timeouts with the defaults the code sets.
package config

import "time"

// DefaultTimeout is the request timeout when none is configured.
const DefaultTimeout = 30 * time.Second

// Config is read from the environment in production.
type Config struct {
	Timeout      time.Duration // default DefaultTimeout
	BatchTimeout time.Duration // default set in New
	JobTimeout   time.Duration // production value in .retryvet.yml
}

// Defaults returns the configuration with its defaults.
func Defaults() Config { return Config{Timeout: DefaultTimeout} }

// New fills in what is not set.
func New(c Config) Config {
	if c.BatchTimeout == 0 {
		c.BatchTimeout = 100 * time.Second
	}
	return c
}
