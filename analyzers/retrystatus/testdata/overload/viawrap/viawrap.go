// Package viawrap reaches httpx's retry through wrap.Send: for Anthropic's
// Messages API (which answers 529 when overloaded) it is reported; for an
// OpenAI-compatible /chat/completions server or a health path, which
// document no 529, it is not.
package viawrap

import (
	"context"

	"example.com/t/overload/httpx"
	"example.com/t/overload/wrap"
)

func Messages(ctx context.Context, c *httpx.Client, body []byte) ([]byte, error) {
	return wrap.Send(ctx, c, "https://api.anthropic.com/v1/messages", body) // want `wrap.Send retries this call with the retry loop at httpx/httpx.go:23, whose decision lists 5xx codes 500, 502, 503, 504`
}

func Chat(ctx context.Context, c *httpx.Client, base string, body []byte) ([]byte, error) { // want Chat:`retry loop at httpx/httpx.go:23 gives up on 529`
	return wrap.Send(ctx, c, base+"/chat/completions", body)
}

func Health(ctx context.Context, c *httpx.Client, base string) error { // want Health:`retry loop at httpx/httpx.go:23 gives up on 529 \(lists 500, 502, 503, 504 at httpx/httpx.go:18\)`
	_, err := wrap.Send(ctx, c, base+"/health", nil)
	return err
}
