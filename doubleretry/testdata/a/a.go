// Package a retries a function of package b, which calls an SDK client
// built in package c: the nesting crosses three packages.
package a

import (
	"context"
	"time"

	"example.com/t/b"
)

// Digest retries b.Summarize 3 times: 9 requests per call.
func Digest(ctx context.Context, text string) (string, error) {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at a/a.go:15 wraps openai Chat.Completions.New at c/c.go:28 \(through b.Summarize, c.\(\*LLM\).Ask\), which retries 2 more times by default \(client built at c/c.go:23\): up to 9 requests per call; pick one layer: option.WithMaxRetries\(0\) on the client, or drop this loop`
		var s string
		if s, err = b.Summarize(ctx, text); err == nil {
			return s, nil
		}
		time.Sleep(time.Duration(i+1) * time.Second)
	}
	return "", err
}

// DigestOnce retries b.SummarizeOnce, whose client does not retry: quiet.
func DigestOnce(ctx context.Context, text string) (string, error) {
	var err error
	for i := 0; i < 3; i++ {
		var s string
		if s, err = b.SummarizeOnce(ctx, text); err == nil {
			return s, nil
		}
		time.Sleep(time.Duration(i+1) * time.Second)
	}
	return "", err
}
