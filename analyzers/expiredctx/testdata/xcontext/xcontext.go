// Package xcontext holds a project's context helpers, in a package of
// their own: callers elsewhere learn what they return from a fact.
package xcontext

import (
	"context"
	"time"
)

// ValueOnly keeps the values of ctx and drops its cancellation.
func ValueOnly(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// Bounded gives cleanup a deadline of its own, apart from the caller's.
func Bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ValueOnly(ctx), 5*time.Second)
}

// valuesOnly is the shape of WithoutCancel before Go 1.21: Done, Err and
// Deadline come from Background, values from the caller's context.
type valuesOnly struct {
	context.Context
	values context.Context
}

func (v valuesOnly) Value(key any) any { return v.values.Value(key) }

// Keep detaches the old way.
func Keep(ctx context.Context) context.Context {
	return &valuesOnly{Context: context.Background(), values: ctx}
}

type traceKey struct{}

// DetachTrace drops the trace from ctx; whatever its name says, the
// result is ctx's child and is done when ctx is.
func DetachTrace(ctx context.Context) context.Context {
	return context.WithValue(ctx, traceKey{}, nil)
}

// Background returns ctx when it is live: not a fresh context on every path.
func Background(ctx context.Context) context.Context {
	if ctx.Err() == nil {
		return ctx
	}
	return context.Background()
}

type connKey struct{}

// WithConn adds a connection id: the result is ctx's child.
func WithConn(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, connKey{}, id)
}

// FromBackground copies the values it needs onto Background through the
// package's own WithValue helpers: detached, whatever the helpers are
// called.
func FromBackground(ctx context.Context) context.Context {
	id, _ := ctx.Value(connKey{}).(string)
	newCtx := WithConn(context.Background(), id)
	newCtx = context.WithValue(newCtx, traceKey{}, ctx.Value(traceKey{}))
	return newCtx
}
