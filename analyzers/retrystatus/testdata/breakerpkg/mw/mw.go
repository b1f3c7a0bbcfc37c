// Package mw puts breakers built by package cbs in front of the next
// stage of a request chain.
package mw

import (
	"context"

	"github.com/afex/hystrix-go/hystrix"

	"example.com/t/breakerpkg/cbs"
)

// Next is the next stage of the chain: the backend call.
type Next func(ctx context.Context, req string) (string, error)

// Breaker runs the next stage through a breaker that counts every error,
// on the request's context.
func Breaker(cfg cbs.Config) func(Next) Next {
	cb := cbs.New(cfg)
	return func(next Next) Next {
		return func(ctx context.Context, req string) (string, error) {
			res, err := cb.Execute(func() (interface{}, error) { return next(ctx, req) }) // want `the breaker counts the caller's cancellation as a failure of the dependency: this Execute runs the stage it guards on ctx, the caller's context, and the Settings at cbs/cbs.go:\d+ \(cbs.New\) set neither IsSuccessful nor IsExcluded`
			if err != nil {
				return "", err
			}
			return res.(string), nil
		}
	}
}

// Resilient runs it through a go-resiliency breaker.
func Resilient(cfg cbs.Config) func(Next) Next {
	cb := cbs.NewResilient(cfg)
	return func(next Next) Next {
		return func(ctx context.Context, req string) (string, error) {
			var res string
			err := cb.Run(func() error { // want `this call runs the stage it guards on ctx, the caller's context, and the breaker at cbs/cbs.go:\d+ \(cbs.NewResilient\) counts every error its work returns`
				var err error
				res, err = next(ctx, req)
				return err
			})
			return res, err
		}
	}
}

// Hystrix runs it as a command its caller names and configures.
func Hystrix(command string) func(Next) Next {
	return func(next Next) Next {
		return func(ctx context.Context, req string) (string, error) {
			var res string
			err := hystrix.Do(command, func() error { // want `this call runs the stage it guards on ctx, the caller's context, without giving hystrix that context`
				var err error
				res, err = next(ctx, req)
				return err
			}, nil)
			return res, err
		}
	}
}

// Quiet: the breaker leaves the caller's cancellation out.
func Excluding(cfg cbs.Config) func(Next) Next {
	cb := cbs.NewExcluding(cfg)
	return func(next Next) Next {
		return func(ctx context.Context, req string) (string, error) {
			res, err := cb.Execute(func() (interface{}, error) { return next(ctx, req) })
			if err != nil {
				return "", err
			}
			return res.(string), nil
		}
	}
}

// Quiet: the stage runs on a context of its own.
func Detached(cfg cbs.Config) func(Next) Next {
	cb := cbs.New(cfg)
	return func(next Next) Next {
		return func(_ context.Context, req string) (string, error) {
			res, err := cb.Execute(func() (interface{}, error) { return next(context.Background(), req) })
			if err != nil {
				return "", err
			}
			return res.(string), nil
		}
	}
}

// Quiet: the breaker guards a computation handed no context.
func Compute(cfg cbs.Config, f func(string) (string, error)) func(context.Context, string) (string, error) {
	cb := cbs.New(cfg)
	return func(ctx context.Context, req string) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		res, err := cb.Execute(func() (interface{}, error) { return f(req) })
		if err != nil {
			return "", err
		}
		return res.(string), nil
	}
}
