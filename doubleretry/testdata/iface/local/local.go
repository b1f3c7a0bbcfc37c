// Package local has an interface with two implementations in the same
// package: one retries, one does not. A retry through the interface names
// the implementation that retries.
package local

import (
	"context"
	"errors"
	"time"
)

type Model interface {
	Generate(ctx context.Context, prompt string) (string, error)
}

type remote struct{ maxRetries int }

func (m *remote) Generate(ctx context.Context, prompt string) (string, error) {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		var out string
		out, err = call(ctx, prompt)
		if err == nil {
			return out, nil
		}
		time.Sleep(2 * time.Second)
	}
	return "", err
}

type canned struct{}

func (canned) Generate(ctx context.Context, prompt string) (string, error) {
	if prompt == "" {
		return "", errors.New("empty")
	}
	return "ok", nil
}

func call(ctx context.Context, prompt string) (string, error) {
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return prompt, nil
}

// retrying wraps another Model with a retry of its own: a middleware the
// code may or may not put in front, so a call through Model is not taken
// to run it. Its own loop runs whatever Model it wraps, the remote one
// among them, and is reported here.
type retrying struct{ next Model }

func (m retrying) Generate(ctx context.Context, prompt string) (string, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ { // want `retry loop \(5 attempts\) at local/local.go:55 wraps retry loop \(4 attempts\) at local/local.go:20 \(through local.Model.Generate as local.\(\*remote\).Generate\): up to 20 attempts per call`
		var out string
		if out, err = m.next.Generate(ctx, prompt); err == nil {
			return out, nil
		}
		time.Sleep(time.Second)
	}
	return "", err
}

type Optimizer struct{ llm Model }

func (o *Optimizer) assess(ctx context.Context, p string) (string, error) {
	return o.llm.Generate(ctx, p)
}

func (o *Optimizer) Run(ctx context.Context, p string) (string, error) {
	var out string
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop \(3 attempts\) at local/local.go:74 wraps retry loop \(4 attempts\) at local/local.go:20 \(through local.\(\*Optimizer\).assess, local.Model.Generate as local.\(\*remote\).Generate\): up to 12 attempts per call; pick one layer: drop the inner retry loop at local/local.go:20, or drop this loop`
		out, err = o.assess(ctx, p)
		if err == nil {
			return out, nil
		}
		time.Sleep(time.Second)
	}
	return "", err
}
