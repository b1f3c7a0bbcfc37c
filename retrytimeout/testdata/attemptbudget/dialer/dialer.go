// Package dialer retries a dial on the context it is given; the package
// that imports it sees that through the model's facts.
package dialer

import (
	"context"
	"math/rand"
	"net"
	"time"
)

// DialRetry dials up to 4 times, with jittered waits, all on ctx.
func DialRetry(ctx context.Context, d *net.Dialer, addr string) (net.Conn, error) {
	var last error
	for attempt := 0; attempt < 4; attempt++ {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int63n(int64(200 * time.Millisecond)))):
		}
	}
	return nil, last
}
