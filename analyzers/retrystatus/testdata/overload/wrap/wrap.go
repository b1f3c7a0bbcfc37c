// Package wrap adds headers and hands on: no API named here, so it passes
// httpx's gap on to its callers.
package wrap

import (
	"context"

	"example.com/t/overload/httpx"
)

func Send(ctx context.Context, c *httpx.Client, url string, body []byte) ([]byte, error) { // want Send:`retry loop at httpx/httpx.go:23 gives up on 529 \(lists 500, 502, 503, 504 at httpx/httpx.go:18\)`
	return c.Post(ctx, url, body)
}
