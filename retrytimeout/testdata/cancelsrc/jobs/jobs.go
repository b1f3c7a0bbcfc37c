// Package jobs holds types and helpers that another package's retries
// reach: a job that carries its caller's context behind an accessor, a
// stop signal with Done and Err, and two sleep helpers.
package jobs

import (
	"context"
	"time"
)

// Job keeps the context it was started with; only Context gives it out.
type Job struct {
	ctx  context.Context
	Name string
}

func Start(ctx context.Context, name string) *Job { return &Job{ctx: ctx, Name: name} }

func (j *Job) Context() context.Context { return j.ctx }

// Detached keeps a context that is never done.
type Detached struct {
	ctx context.Context
}

func NewDetached() *Detached { return &Detached{ctx: context.Background()} }

func (d *Detached) Context() context.Context { return d.ctx }

// Stop is closed when the owner shuts down.
type Stop struct {
	ch  chan struct{}
	err error
}

func NewStop() *Stop { return &Stop{ch: make(chan struct{})} }

func (s *Stop) Close()                { s.err = context.Canceled; close(s.ch) }
func (s *Stop) Done() <-chan struct{} { return s.ch }
func (s *Stop) Err() error            { return s.err }

// Pause waits d whatever happens.
func Pause(d time.Duration) { time.Sleep(d) }

// PauseCtx waits d or until ctx is done.
func PauseCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
