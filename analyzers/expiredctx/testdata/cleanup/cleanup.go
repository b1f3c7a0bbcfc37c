// Package cleanup holds registries of cleanup and rollback closures that
// run later with the context they are given: the shapes of e2b's
// sandbox.Cleanup and keboola's rollback container. Their callers are in
// package runner (the facts cross the package boundary).
package cleanup

import (
	"context"
	"errors"
	"log"
	"sync"
)

// Cleanup runs the closures registered with Add, last first, once.
type Cleanup struct {
	fns      []func(ctx context.Context) error
	priority []func(ctx context.Context) error
	once     sync.Once
	err      error
}

func (c *Cleanup) Add(f func(ctx context.Context) error)         { c.fns = append(c.fns, f) }
func (c *Cleanup) AddPriority(f func(ctx context.Context) error) { c.priority = append(c.priority, f) }

// Run hands ctx to run inside a sync.Once closure: a runner all the same.
func (c *Cleanup) Run(ctx context.Context) error { // want Run:"runs Cleanup.priority with ctx param 0 at cleanup/cleanup.go:34"
	c.once.Do(func() { c.run(ctx) })
	return c.err
}

func (c *Cleanup) run(ctx context.Context) { // want run:"runs Cleanup.priority with ctx param 0 at cleanup/cleanup.go:34"
	var errs []error
	for i := len(c.priority) - 1; i >= 0; i-- {
		errs = append(errs, c.priority[i](ctx))
	}
	for i := len(c.fns) - 1; i >= 0; i-- {
		errs = append(errs, c.fns[i](ctx))
	}
	c.err = errors.Join(errs...)
}

type callback func(ctx context.Context) error

type strategy int

const (
	lifo strategy = iota
	parallel
)

type container struct {
	strategy  strategy
	lock      sync.Mutex
	callbacks []callback
}

func (v *container) Add(cb func(ctx context.Context) error) {
	v.lock.Lock()
	v.callbacks = append(v.callbacks, cb)
	v.lock.Unlock()
}

func (v *container) invokeOrErr(ctx context.Context) error { // want invokeOrErr:"runs container.callbacks with ctx param 0 at cleanup/cleanup.go:88"
	if v.strategy == parallel {
		return v.invokeParallel(ctx)
	}
	return v.invokeLIFO(ctx)
}

func (v *container) invokeLIFO(ctx context.Context) error { // want invokeLIFO:"runs container.callbacks with ctx param 0 at cleanup/cleanup.go:73"
	var errs []error
	for i := len(v.callbacks) - 1; i >= 0; i-- {
		if err := v.callbacks[i](ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// A range over the registry, each closure in its own goroutine.
func (v *container) invokeParallel(ctx context.Context) error { // want invokeParallel:"runs container.callbacks with ctx param 0 at cleanup/cleanup.go:88"
	var wg sync.WaitGroup
	errs := make([]error, len(v.callbacks))
	for i, cb := range v.callbacks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = cb(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Rollback is the top-level container: Invoke logs what failed.
type Rollback struct {
	*container
}

func NewRollback() *Rollback { return &Rollback{container: &container{}} }

// Three levels above the registry: InvokeIfErr, Invoke, invokeOrErr.
func (r *Rollback) InvokeIfErr(ctx context.Context, errPtr *error) { // want InvokeIfErr:"runs container.callbacks with ctx param 0 at cleanup/cleanup.go:88"
	if errPtr != nil && *errPtr != nil {
		r.Invoke(ctx)
	}
}

func (r *Rollback) Invoke(ctx context.Context) { // want Invoke:"runs container.callbacks with ctx param 0 at cleanup/cleanup.go:88"
	if err := r.container.invokeOrErr(ctx); err != nil {
		log.Printf("rollback failed: %v", err)
	}
}

// Detached runs its closures on a context of their own, whatever it is
// given: not a runner of that context.
type Detached struct {
	fns []func(ctx context.Context) error
}

func (d *Detached) Add(f func(ctx context.Context) error) { d.fns = append(d.fns, f) }

func (d *Detached) Run(ctx context.Context) error {
	cctx := context.WithoutCancel(ctx)
	var errs []error
	for _, f := range d.fns {
		errs = append(errs, f(cctx))
	}
	return errors.Join(errs...)
}

// Background runs its closures on context.Background.
type Background struct {
	fns map[string]func(ctx context.Context) error
}

func (b *Background) Run(ctx context.Context) error {
	log.Printf("cleaning up (%v)", ctx.Err())
	var errs []error
	for _, f := range b.fns {
		errs = append(errs, f(context.Background()))
	}
	return errors.Join(errs...)
}

// Listeners are told of events: functions without an error result, not
// work that can fail.
type Listeners struct {
	fns []func(ctx context.Context, event string)
}

func (l *Listeners) Notify(ctx context.Context, event string) {
	for _, f := range l.fns {
		f(ctx, event)
	}
}

// Chain hands ctx to one function field (an adapter, a middleware's next):
// not a registry of closures.
type Chain struct {
	next func(ctx context.Context) error
}

func (h *Chain) Serve(ctx context.Context) error { return h.next(ctx) }

// Router dispatches to one handler by name: a lookup, not a run of the
// registered work.
type Router struct {
	handlers map[string]func(ctx context.Context) error
}

func (r *Router) Dispatch(ctx context.Context, name string) error {
	h, ok := r.handlers[name]
	if !ok {
		return errors.New("no handler")
	}
	return h(ctx)
}

func (r *Router) Call(ctx context.Context, name string) error { return r.handlers[name](ctx) }
