package bounded

import (
	"context"
	"errors"
	"time"
)

// The shape of crossplane-runtime's managed reconciler (fixed in 1bccacf):
// a reconcile-wide deadline, calls to plug-in interfaces, the status write
// on every failure path.

// External is implemented by providers elsewhere; here only an adapter and
// a stub.
type External interface {
	Observe(ctx context.Context, name string) (bool, error)
}

type ExternalFns struct {
	ObserveFn func(ctx context.Context, name string) (bool, error)
}

func (e ExternalFns) Observe(ctx context.Context, name string) (bool, error) {
	return e.ObserveFn(ctx, name)
}

type NopExternal struct{}

func (NopExternal) Observe(ctx context.Context, name string) (bool, error) { return false, nil }

// Configurator's real implementation here only sets names: it does nothing
// with ctx, so it cannot run out of time.
type Configurator interface {
	Configure(ctx context.Context, name string) error
}

type ConfiguratorFn func(ctx context.Context, name string) error

func (fn ConfiguratorFn) Configure(ctx context.Context, name string) error { return fn(ctx, name) }

type ConfiguratorChain []Configurator

func (cc ConfiguratorChain) Configure(ctx context.Context, name string) error {
	for _, c := range cc {
		if err := c.Configure(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

type NameConfigurator struct{ prefix string }

func (c *NameConfigurator) Configure(ctx context.Context, name string) error {
	return configureName(ctx, c.prefix+name)
}

func configureName(_ context.Context, name string) error {
	if name == "" {
		return errEmpty
	}
	return nil
}

var errEmpty = errors.New("empty name")

type Reconciler struct {
	external  External
	configure Configurator
	job       Job
}

func (r *Reconciler) Reconcile(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.configure.Configure(ctx, name); err != nil {
		return r.job.Requeue(ctx) // quiet: Configure does no I/O with ctx
	}
	if _, err := r.external.Observe(ctx, name); err != nil {
		return r.job.Requeue(ctx) // want `publish uses ctx after r.external.Observe failed on it: when that call ran out of the deadline of 60s set at bounded/noio.go:74`
	}
	return nil
}
