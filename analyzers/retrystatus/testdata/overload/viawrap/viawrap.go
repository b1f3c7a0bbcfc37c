// Package viawrap reaches httpx's retry through wrap.Send, for an
// OpenAI-compatible /chat/completions endpoint.
package viawrap

import (
	"context"

	"example.com/t/overload/httpx"
	"example.com/t/overload/wrap"
)

func Chat(ctx context.Context, c *httpx.Client, base string, body []byte) ([]byte, error) {
	return wrap.Send(ctx, c, base+"/chat/completions", body) // want `wrap.Send retries this call with the retry loop at httpx/httpx.go:23, whose decision lists 5xx codes 500, 502, 503, 504`
}

// Health goes to the same host but names no API path that answers 529.
func Health(ctx context.Context, c *httpx.Client, base string) error { // want Health:`retry loop at httpx/httpx.go:23 gives up on 529 \(lists 500, 502, 503, 504 at httpx/httpx.go:18\)`
	_, err := wrap.Send(ctx, c, base+"/health", nil)
	return err
}
