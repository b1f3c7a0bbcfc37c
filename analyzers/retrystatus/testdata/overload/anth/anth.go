// Package anth sends to Anthropic's Messages API, which answers 529 when
// it is overloaded, through httpx's retry.
package anth

import (
	"context"

	"example.com/t/overload/httpx"
)

const messagesURL = "https://api.anthropic.com/v1/messages"

func Complete(ctx context.Context, c *httpx.Client, body []byte) ([]byte, error) {
	return c.Post(ctx, messagesURL, body) // want `httpx.\(\*Client\).Post retries this call with the retry loop at httpx/httpx.go:23, whose decision lists 5xx codes 500, 502, 503, 504 \(at httpx/httpx.go:18\) and gives up on 529 \(overloaded\), the status this API answers when it is overloaded: .*; use code >= 500 there`
}

// Models lists the models through httpx's Get, whose range stops at 504.
func Models(ctx context.Context, c *httpx.Client) ([]byte, error) {
	return c.Get(ctx, "https://api.anthropic.com/v1/models") // want `httpx.\(\*Client\).Get retries this call with the retry loop at httpx/httpx.go:\d+, whose decision lists 5xx codes 500, 501, 502, 503, 504 \(at httpx/httpx.go:\d+\) and gives up on 529`
}
