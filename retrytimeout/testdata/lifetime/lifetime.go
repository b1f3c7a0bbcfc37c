// Package lifetime: a context field the value makes for itself
// (context.WithCancel(context.Background()), cancelled when the value is
// closed) is its lifetime, not a caller's cancellation: a wait that
// ignores it delays Close by one wait. A context field handed in by the
// caller is the caller's, and a wait must honour it.
package lifetime

import (
	"context"
	"math/rand/v2"
	"net"
	"time"
)

type Pool struct {
	ctx    context.Context
	cancel context.CancelFunc
	addr   string
}

func NewPool(addr string) *Pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{ctx: ctx, cancel: cancel, addr: addr}
}

func (p *Pool) Close() { p.cancel() }

// Quiet: p.ctx is the pool's lifetime, not a caller's deadline. No
// uncancellable-wait finding, and no attempt-only one: nothing a caller
// cancels reaches the retry, so its attempt count is the bound it can have.
func (p *Pool) reconnect() (net.Conn, error) {
	var d net.Dialer
	var conn net.Conn
	var err error
	for i := 0; i < 5; i++ {
		conn, err = d.DialContext(p.ctx, "tcp", p.addr)
		if err == nil {
			return conn, nil
		}
		time.Sleep(rand.N(time.Duration(i+1) * time.Second))
	}
	return nil, err
}

type Session struct {
	ctx  context.Context
	addr string
}

// NewSession keeps the caller's context.
func NewSession(ctx context.Context, addr string) *Session { return &Session{ctx: ctx, addr: addr} }

// Reported: s.ctx is the caller's.
func (s *Session) reconnect() (net.Conn, error) {
	var d net.Dialer
	var conn net.Conn
	var err error
	for i := 0; i < 5; i++ {
		conn, err = d.DialContext(s.ctx, "tcp", s.addr)
		if err == nil {
			return conn, nil
		}
		time.Sleep(rand.N(time.Duration(i+1) * time.Second)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after s.ctx is done`
	}
	return nil, err
}
