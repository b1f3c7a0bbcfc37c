package shapes

import (
	"context"
	"net"
	"time"
)

// probePort dials only to see whether the port answers.
func probePort(ctx context.Context, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// Quiet: waiting for a daemon to listen, through a probe helper.
func waitListening(ctx context.Context, addr string) error {
	var err error
	for i := 0; i < 10; i++ {
		if err = probePort(ctx, addr); err == nil {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return err
}

// Quiet: the same wait inline, the connection declared before the dial
// and closed once it answers.
func waitListeningInline(addr string) error {
	var err error
	for i := 0; i < 10; i++ {
		var c net.Conn
		c, err = net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		time.Sleep(time.Second)
	}
	return err
}

// A dial retry that keeps the connection is a retry of the dial.
func dialRetry(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	var err error
	for i := 0; i < 5; i++ { // want `retry loop: attempts=5 waits=1s,1s,1s,1s jitter=no deadline=no cancellable=no retryafter=no`
		var c net.Conn
		c, err = d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return c, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
