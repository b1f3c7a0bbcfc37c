// Package b calls the SDK through clients built in package c; it has no
// retry of its own, so nothing is reported here.
package b

import (
	"context"

	"example.com/t/c"
)

var (
	llm   = c.New("k")
	quiet = c.NewQuiet("k")
)

// Summarize makes one call; the SDK retries it twice more by default.
func Summarize(ctx context.Context, text string) (string, error) {
	return llm.Ask(ctx, "summarize: "+text)
}

// SummarizeOnce uses the client with retries off.
func SummarizeOnce(ctx context.Context, text string) (string, error) {
	return quiet.Ask(ctx, "summarize: "+text)
}
