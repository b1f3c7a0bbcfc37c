// Package cbs builds the breakers from configuration; package mw runs
// requests through them.
package cbs

import (
	"context"
	"errors"
	"time"

	"github.com/eapache/go-resiliency/breaker"
	"github.com/sony/gobreaker"
)

// Config is a breaker's configuration.
type Config struct {
	Name      string
	MaxErrors uint32
	Timeout   time.Duration
}

// New builds a breaker that counts every error of what it runs.
func New(cfg Config) *gobreaker.CircuitBreaker {
	settings := gobreaker.Settings{
		Name:    cfg.Name,
		Timeout: cfg.Timeout,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return c.ConsecutiveFailures > cfg.MaxErrors
		},
	}
	return gobreaker.NewCircuitBreaker(settings)
}

// NewExcluding builds a breaker that leaves the caller's cancellation out.
func NewExcluding(cfg Config) *gobreaker.CircuitBreaker {
	return gobreaker.NewCircuitBreaker(gobreaker.Settings{
		Name: cfg.Name,
		IsSuccessful: func(err error) bool {
			return err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
		},
	})
}

// NewResilient builds a go-resiliency breaker, which counts every error.
func NewResilient(cfg Config) *breaker.Breaker {
	return breaker.New(int(cfg.MaxErrors), 1, cfg.Timeout)
}
