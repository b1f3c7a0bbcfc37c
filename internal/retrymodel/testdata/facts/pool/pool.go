// Package pool is a connection pool that dials in the background, with its
// own retry, as a Redis client's pool does.
package pool

import (
	"context"
	"net"
	"time"
)

// Pool holds connections to one server.
type Pool struct {
	addr  string
	conns chan net.Conn
}

// New returns the pool at once and dials in the background.
func New(addr string) *Pool {
	p := &Pool{addr: addr, conns: make(chan net.Conn, 1)}
	go p.dial()
	return p
}

func (p *Pool) dial() { // want dial:`reaches retry loop\(5\); remote$`
	var d net.Dialer
	for attempt := 0; attempt < 5; attempt++ {
		c, err := d.DialContext(context.Background(), "tcp", p.addr)
		if err == nil {
			p.conns <- c
			return
		}
		time.Sleep(time.Second)
	}
}

// Dial connects now, retrying: construction that does run the retry.
func Dial(addr string) (*Pool, error) { // want Dial:`reaches retry loop\(3\); remote$`
	p := &Pool{addr: addr, conns: make(chan net.Conn, 1)}
	var d net.Dialer
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var c net.Conn
		if c, err = d.DialContext(context.Background(), "tcp", addr); err == nil {
			p.conns <- c
			return p, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}

// Get takes a connection and sends a command.
func (p *Pool) Get(ctx context.Context, key string) (string, error) { // want Get:`^remote$`
	select {
	case c := <-p.conns:
		defer func() { p.conns <- c }()
		_, err := c.Write([]byte("GET " + key + "\r\n"))
		return key, err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
