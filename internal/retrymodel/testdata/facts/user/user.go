// Package user retries a cache read; the pool it builds in the loop dials
// in the background, which is not part of the read it retries.
package user

import (
	"context"
	"time"

	"example.com/rm/facts/pool"
)

// Read builds the pool inside its retry: the pool's dialling retry runs in
// a goroutine, not inside an attempt, so the chain is one layer.
func Read(ctx context.Context, addr string) (string, error) { // want Read:`reaches retry loop\(3\); remote$`
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		p := pool.New(addr)
		var v string
		if v, err = p.Get(ctx, "k"); err == nil {
			return v, nil
		}
		time.Sleep(time.Second)
	}
	return "", err
}

// ReadDialing dials inside its retry, and the dial retries while the
// attempt waits: two layers.
func ReadDialing(ctx context.Context, addr string) (string, error) { // want ReadDialing:`reaches retry loop\(3\) > retry loop\(3\); remote$`
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var p *pool.Pool
		if p, err = pool.Dial(addr); err != nil {
			time.Sleep(time.Second)
			continue
		}
		var v string
		if v, err = p.Get(ctx, "k"); err == nil {
			return v, nil
		}
		time.Sleep(time.Second)
	}
	return "", err
}
