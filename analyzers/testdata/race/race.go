// Package race holds retry loops whose waits grow in place (d *= 2): the
// retry model reads those as d * 2, an expression of its own making, while
// buildssa reads the same package's type information.
package race

import (
	"context"
	"errors"
	"time"
)

var errBusy = errors.New("busy")

func call(ctx context.Context) error { return errBusy }

// Double retries with a wait that doubles in place.
func Double(ctx context.Context) error {
	d := 100 * time.Millisecond
	var err error
	for i := 0; i < 5; i++ {
		if err = call(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
		d *= 2
	}
	return err
}

// Grow adds a step to its wait on every turn.
func Grow(ctx context.Context) error {
	d := time.Second
	var err error
	for i := 0; i < 4; i++ {
		if err = call(ctx); err == nil {
			return nil
		}
		time.Sleep(d)
		d += time.Second
	}
	return err
}

// Shift shifts its wait left on every turn.
func Shift(ctx context.Context) error {
	d := time.Second
	var err error
	for i := 0; i < 4; i++ {
		if err = call(ctx); !errors.Is(err, errBusy) {
			return err
		}
		time.Sleep(d)
		d <<= 1
	}
	return err
}

// Entry gives the retries a deadline, so the census's SSA runs here too.
func Entry() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Double(ctx); err != nil {
		return err
	}
	if err := Grow(ctx); err != nil {
		return err
	}
	return Shift(ctx)
}
