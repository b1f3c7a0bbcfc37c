// Package client retries every API call through retryx, whose count is
// configuration, over an SDK whose client retries by itself.
package client

import (
	"context"

	"example.com/t/handoff/api"
	"example.com/t/handoff/retryx"
)

// apiDo hands every call it is given to retryx: the nesting is said once,
// here, for the calls that hand it a retrying SDK call.
func apiDo[T any](ctx context.Context, cfg retryx.Config, fn func() (T, error)) (T, error) {
	var out T
	err := retryx.Do(ctx, cfg, func() error { // want `retry helper retryx.Do at client/client.go:16 wraps retryablehttp.Client.Do at api/api.go:\d+ \(through client.apiDo call at client/client.go:26, api.ProjectsService.Get as api.\(\*projects\).Get\), which retries 5 more times \(client built at api/api.go:\d+\): up to 6 requests per attempt of this layer, whose attempts are not known; pick one layer: RetryMax = 0 on the retryablehttp client, or drop this retry helper retryx.Do`
		var err error
		out, err = fn()
		return err
	})
	return out, err
}

// Project hands apiDo a call of the retrying SDK.
func Project(ctx context.Context, c *api.Client, cfg retryx.Config, id string) error {
	_, err := apiDo(ctx, cfg, func() (*api.Project, error) { return c.Projects.Get(ctx, id) })
	return err
}

// Projects hands it another: the same finding, said once.
func Projects(ctx context.Context, c *api.Client, cfg retryx.Config, ids []string) error {
	for _, id := range ids {
		if _, err := apiDo(ctx, cfg, func() (*api.Project, error) { return c.Projects.Get(ctx, id) }); err != nil {
			return err
		}
	}
	return nil
}

// Upload hands retryx a retrying SDK call directly.
func Upload(ctx context.Context, c *api.Client, cfg retryx.Config, id string) error {
	return retryx.Do(ctx, cfg, func() error { // want `retry helper retryx.Do at client/client.go:42 wraps retryablehttp.Client.Do at api/api.go:\d+ \(through api.ProjectsService.Get as api.\(\*projects\).Get\), which retries 5 more times \(client built at api/api.go:\d+\): up to 6 requests per attempt of this layer, whose attempts are not known`
		_, err := c.Projects.Get(ctx, id)
		return err
	})
}

// plainDo hands its calls to retryx too, but only ever calls that make one
// request each: quiet.
func plainDo[T any](ctx context.Context, cfg retryx.Config, fn func() (T, error)) (T, error) {
	var out T
	err := retryx.Do(ctx, cfg, func() error {
		var err error
		out, err = fn()
		return err
	})
	return out, err
}

// PlainProject: a client without retries, one layer: quiet.
func PlainProject(ctx context.Context, p *api.Plain, cfg retryx.Config, id string) error {
	_, err := plainDo(ctx, cfg, func() (*api.Project, error) { return p.Get(ctx, id) })
	return err
}

// QuietProject: a retryablehttp client with RetryMax 0 makes one attempt:
// quiet.
func QuietProject(ctx context.Context, q *api.Quiet, cfg retryx.Config, id string) error {
	_, err := plainDo(ctx, cfg, func() (*api.Project, error) { return q.Get(ctx, id) })
	return err
}

// background hands fn to a goroutine, not to a retry: quiet.
func background(fn func() error) { retryx.Go(fn) }

// Background starts a retrying SDK call in the background once.
func Background(ctx context.Context, c *api.Client, id string) {
	background(func() error { _, err := c.Projects.Get(ctx, id); return err })
}

// once calls fn once: quiet.
func once[T any](fn func() (T, error)) (T, error) { return fn() }

// Once calls the retrying SDK once.
func Once(ctx context.Context, c *api.Client, id string) error {
	_, err := once(func() (*api.Project, error) { return c.Projects.Get(ctx, id) })
	return err
}

// stored keeps fn for later: quiet.
type stored struct{ op func() error }

func (s *stored) set(fn func() error) { s.op = fn }

// Store stores a retrying SDK call.
func Store(ctx context.Context, c *api.Client, id string) *stored {
	s := &stored{}
	s.set(func() error { _, err := c.Projects.Get(ctx, id); return err })
	return s
}
