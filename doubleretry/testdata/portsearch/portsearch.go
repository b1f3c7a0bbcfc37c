// Package portsearch holds a reconnect retry around a listener that, when
// no port is asked for, tries random ports until the server accepts one:
// a search over candidates, each attempt a different request, not a retry
// layer. Beside it, the same reconnect around a helper that sends the
// same request again is two layers.
package portsearch

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"

	"github.com/cenkalti/backoff/v4"
)

type Client struct{ conn net.Conn }

// listen asks the server to forward a port.
func (c *Client) listen(port int) (net.Listener, error) {
	if _, err := c.conn.Write([]byte("tcpip-forward " + strconv.Itoa(port))); err != nil {
		return nil, err
	}
	return nil, nil
}

// anyPort tries up to 10 random ports: a port in use is answered by
// another port.
func (c *Client) anyPort() (net.Listener, error) {
	var err error
	for i := 0; i < 10; i++ {
		port := 1024 + rand.IntN(60000)
		var l net.Listener
		if l, err = c.listen(port); err == nil {
			return l, nil
		}
	}
	return nil, fmt.Errorf("no free port: %w", err)
}

// again sends the same request up to 3 times.
func (c *Client) again(port int) (net.Listener, error) {
	var err error
	for i := 0; i < 3; i++ {
		var l net.Listener
		if l, err = c.listen(port); err == nil {
			return l, nil
		}
	}
	return nil, err
}

// Serve reconnects with backoff around the port search: one layer. Quiet.
func (c *Client) Serve() error {
	return backoff.Retry(func() error {
		_, err := c.anyPort()
		return err
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 5))
}

// ServeFixed reconnects with backoff around a helper that retries the
// same request: 6 x 3 requests.
func (c *Client) ServeFixed(port int) error {
	return backoff.Retry(func() error { // want `backoff.Retry \(6 attempts\) at portsearch/portsearch.go:64 wraps retry loop \(3 attempts\) at portsearch/portsearch.go:44 \(through portsearch.\(\*Client\).again\): up to 18 requests per call`
		_, err := c.again(port)
		return err
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 5))
}
