// Package a wraps b's retry in its own: the chain crosses packages.
package a

import (
	"context"
	"net/http"

	"example.com/rm/facts/b"
)

// Outer retries Fetch, which retries: a chain of two loops.
func Outer(ctx context.Context, req *http.Request) error { // want Outer:`reaches retry loop\(2\) > retry loop\(3\); remote`
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		_, err = b.Fetch(ctx, http.DefaultClient, req)
		if err == nil {
			return nil
		}
		if err := b.Sleep(ctx, 1); err != nil {
			return err
		}
	}
	return err
}

// Direct calls Fetch once: it reaches the loop through the call.
func Direct(ctx context.Context, req *http.Request) error { // want Direct:`reaches retry loop\(3\); remote`
	_, err := b.Fetch(ctx, http.DefaultClient, req)
	return err
}

// Plain reaches nothing.
func Plain() int { return b.Local(1) }
