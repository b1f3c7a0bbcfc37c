// Package fallback: a timeout meant for one host, set once before a loop
// that tries each host in turn. The first host that hangs uses up the whole
// deadline, and every host after it is tried on an expired context: the
// fallback that was to save the call fails at once.
package fallback

import (
	"context"
	"errors"
	"net"
	"time"
)

type Config struct {
	Hosts          []string
	ConnectTimeout time.Duration
}

var d net.Dialer

func connect(ctx context.Context, cfg Config) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout) // want `fallback loop over cfg.Hosts at fallback/fallback.go:25 tries each on the one deadline set here: one that hangs uses all of it and every later one fails at once with context.DeadlineExceeded; give each attempt its own timeout \(context.WithTimeout inside the loop\)`
	defer cancel()
	var errs []error
	for _, h := range cfg.Hosts {
		conn, err := d.DialContext(ctx, "tcp", h)
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// A constant timeout, the hosts walked by index.
func connectIdx(ctx context.Context, hosts []string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second) // want `fallback loop over hosts at fallback/fallback.go:40 tries each on the one deadline of 5s set here`
	defer cancel()
	var last error
	for i := 0; i < len(hosts); i++ {
		conn, err := d.DialContext(ctx, "tcp", hosts[i])
		if err != nil {
			last = err
			continue
		}
		return conn, nil
	}
	return nil, last
}

// Quiet: the fix, a deadline of its own for each host.
func connectEach(ctx context.Context, cfg Config) (net.Conn, error) {
	var errs []error
	for _, h := range cfg.Hosts {
		hctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
		conn, err := d.DialContext(hctx, "tcp", h)
		cancel()
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// Quiet: an overall budget with a per-host timeout inside it.
func connectBudget(ctx context.Context, cfg Config) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var errs []error
	for _, h := range cfg.Hosts {
		conn, err := dialOne(ctx, h, cfg.ConnectTimeout)
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func dialOne(ctx context.Context, h string, t time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	return d.DialContext(ctx, "tcp", h)
}

// Quiet: only a cancel, no deadline, on the shared context.
func connectCancel(ctx context.Context, hosts []string) (net.Conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, h := range hosts {
		if conn, err := d.DialContext(ctx, "tcp", h); err == nil {
			return conn, nil
		}
	}
	return nil, errors.New("no host")
}

// Quiet: the loop dials on the caller's context, not on the deadline.
func connectParent(parent context.Context, hosts []string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(parent, time.Second)
	defer cancel()
	if _, err := d.DialContext(ctx, "tcp", "probe:1"); err != nil {
		return nil, err
	}
	for _, h := range hosts {
		if conn, err := d.DialContext(parent, "tcp", h); err == nil {
			return conn, nil
		}
	}
	return nil, errors.New("no host")
}

// Quiet: a walk over local work, not a fallback of a call given ctx.
func firstParsable(ctx context.Context, lines []string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_ = ctx
	for _, l := range lines {
		if n, err := parse(l); err == nil {
			return n, nil
		}
	}
	return 0, errors.New("none")
}

func parse(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty")
	}
	return len(s), nil
}
