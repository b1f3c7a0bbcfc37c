// Package sharedctx holds retries that run a handler again on the same
// message, beside a middleware that replaces the message's context with
// one it cancels on return; and the retries and middlewares that keep
// each attempt's context live.
package sharedctx

import (
	"context"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v5"
)

type Message struct {
	ctx     context.Context
	Payload []byte
}

func (m *Message) Context() context.Context {
	if m.ctx != nil {
		return m.ctx
	}
	return context.Background()
}

func (m *Message) SetContext(ctx context.Context) { m.ctx = ctx }

type HandlerFunc func(msg *Message) ([]*Message, error)

// Timeout gives the handler a deadline by replacing the message's context,
// and cancels it when the handler returns.
func Timeout(d time.Duration) func(HandlerFunc) HandlerFunc {
	return func(h HandlerFunc) HandlerFunc {
		return func(msg *Message) ([]*Message, error) {
			ctx, cancel := context.WithTimeout(msg.Context(), d)
			defer cancel()
			msg.SetContext(ctx)
			return h(msg)
		}
	}
}

// Retry runs the handler again on the same message: after a Timeout inside
// it returns, the message holds a done context.
func Retry(h HandlerFunc) HandlerFunc {
	return func(msg *Message) ([]*Message, error) {
		ctx := msg.Context()
		op := func() ([]*Message, error) {
			return h(msg) // want `per-attempt timeout ends the retry: the backoff.Retry runs h\(msg\) again on the same msg, and the function literal in sharedctx.Timeout \(sharedctx/sharedctx.go:\d+\) replaces msg's context with one it cancels when it returns \(set at sharedctx/sharedctx.go:\d+, made at sharedctx/sharedctx.go:\d+\); run inside this retry, it leaves msg on a done context after the first attempt`
		}
		return backoff.Retry(ctx, op, backoff.WithBackOff(backoff.NewExponentialBackOff()), backoff.WithMaxTries(3))
	}
}

// ResetRetry puts the original context back before each attempt: quiet.
func ResetRetry(h HandlerFunc) HandlerFunc {
	return func(msg *Message) ([]*Message, error) {
		orig := msg.Context()
		op := func() ([]*Message, error) {
			msg.SetContext(orig)
			return h(msg)
		}
		return backoff.Retry(orig, op, backoff.WithBackOff(backoff.NewExponentialBackOff()), backoff.WithMaxTries(3))
	}
}

// CopyRetry gives each attempt a copy of the message: quiet.
func CopyRetry(h HandlerFunc) HandlerFunc {
	return func(msg *Message) ([]*Message, error) {
		op := func() ([]*Message, error) {
			m := *msg
			return h(&m)
		}
		return backoff.Retry(msg.Context(), op, backoff.WithBackOff(backoff.NewExponentialBackOff()), backoff.WithMaxTries(3))
	}
}

type RequestFunc func(r *http.Request) error

// A retry of another function type: no function of that type here
// replaces its argument's context (http.Request.WithContext returns a
// copy), quiet.
func RetryRequest(do RequestFunc, r *http.Request) error {
	_, err := backoff.Retry(r.Context(), func() (struct{}, error) {
		return struct{}{}, do(r)
	}, backoff.WithBackOff(backoff.NewExponentialBackOff()), backoff.WithMaxTries(3))
	return err
}

func TimeoutRequest(d time.Duration, do RequestFunc) RequestFunc {
	return func(r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		return do(r.WithContext(ctx))
	}
}

type Job struct{ ctx context.Context }

func (j *Job) SetContext(ctx context.Context) { j.ctx = ctx }
func (j *Job) Context() context.Context       { return j.ctx }

type JobFunc func(j *Job) error

// A middleware that puts the job's context back when it returns: quiet.
func JobTimeout(d time.Duration, next JobFunc) JobFunc {
	return func(j *Job) error {
		orig := j.Context()
		ctx, cancel := context.WithTimeout(orig, d)
		defer cancel()
		defer j.SetContext(orig)
		j.SetContext(ctx)
		return next(j)
	}
}

func RetryJob(next JobFunc, j *Job) error {
	_, err := backoff.Retry(j.Context(), func() (struct{}, error) {
		return struct{}{}, next(j)
	}, backoff.WithBackOff(backoff.NewExponentialBackOff()), backoff.WithMaxTries(3))
	return err
}
