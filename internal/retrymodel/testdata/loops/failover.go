package loops

import (
	"context"
	"errors"
	"net"
	"time"
)

// A walk over a pool by index tries each server once: a fallback chain,
// as a range over the pool would be, not a retry of one operation.

type pool struct {
	servers []string
	current string
	conn    net.Conn
}

func (p *pool) dial(ctx context.Context) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", p.current)
	if err != nil {
		return err
	}
	p.conn = c
	return nil
}

func (p *pool) connect(ctx context.Context) error {
	var err error
	for i := 0; i < len(p.servers); i++ { // want `fallback`
		p.current = p.servers[i]
		if err = p.dial(ctx); err == nil {
			break
		}
	}
	return err
}

// The counter indexes only the waits: one operation, retried on a
// schedule read from a slice.
var pauses = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}

func (p *pool) redial(ctx context.Context) error {
	var err error
	for i := 0; i < len(pauses); i++ { // want `retry loop: attempts=\? waits=1s,2s,4s`
		if err = p.dial(ctx); err == nil {
			return nil
		}
		time.Sleep(pauses[i])
	}
	return errors.Join(err, errors.New("gave up"))
}

// The counter indexes a schedule of waits that a hint may raise before the
// wait: still one operation retried.
func (p *pool) redialHinted(ctx context.Context, hint func() time.Duration) error {
	var err error
	for i := 0; i < len(pauses); i++ { // want `retry loop: attempts=\?`
		if err = p.dial(ctx); err == nil {
			return nil
		}
		d := pauses[i]
		if h := hint(); h > d {
			d = h
		}
		time.Sleep(d)
	}
	return err
}

func dialAddr(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// A dialer walks the resolved addresses from a starting index, one dial
// each, with no wait: the index moves every turn, so each turn tries
// another address. A fallback, not a retry.
func dialEach(ctx context.Context, addrs []string, start int) (net.Conn, error) {
	var err error
	n := len(addrs)
	idx := start
	for range n { // want `fallback`
		var c net.Conn
		c, err = dialAddr(ctx, addrs[idx%n])
		if err == nil {
			return c, nil
		}
		idx++
	}
	return nil, err
}

// The same counter with the same element each turn (the index does not
// move): one operation, retried 3 times.
func dialSame(ctx context.Context, addrs []string) (net.Conn, error) {
	var err error
	for range 3 { // want `retry loop: attempts=3`
		var c net.Conn
		c, err = dialAddr(ctx, addrs[0])
		if err == nil {
			return c, nil
		}
	}
	return nil, err
}

// A retryer the caller hands in decides each retry and its wait, as
// gax.Invoke's settings.Retry does: the loop ends when the retryer says
// so, so its attempts are the caller's, not unbounded. The verdict is
// read in the if's init.
type retryer interface {
	Retry(err error) (time.Duration, bool)
}

func invoke(ctx context.Context, p *pool, r retryer) error {
	for { // want `retry loop: attempts=\? `
		err := p.dial(ctx)
		if err == nil {
			return nil
		}
		if d, ok := r.Retry(err); !ok {
			return err
		} else {
			time.Sleep(d)
		}
	}
}
