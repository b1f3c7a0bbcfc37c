// Package store sends to a key-value service that never answers 529:
// quiet.
package store

import (
	"context"

	"example.com/t/overload/httpx"
)

func Put(ctx context.Context, c *httpx.Client, body []byte) error { // want Put:`retry loop at httpx/httpx.go:23 gives up on 529 \(lists 500, 502, 503, 504 at httpx/httpx.go:18\)`
	_, err := c.Post(ctx, "https://kv.internal.example/put", body)
	return err
}
