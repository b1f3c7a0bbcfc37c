// Package a retries functions of package b, which call the SDK on clients
// built in package c: the nesting crosses three packages. It also retries
// SDK calls on package c's client variables directly.
package a

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"

	"example.com/t/b"
	"example.com/t/c"
)

func params(q string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	}
}

// Digest retries b.Summarize 3 times: 9 requests per call.
func Digest(ctx context.Context, text string) (string, error) {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at a/a.go:26 wraps openai Chat.Completions.New at c/c.go:28 \(through b.Summarize, c.\(\*LLM\).Ask\), which retries 2 more times by default \(client built at c/c.go:23\): up to 9 requests per call; pick one layer: option.WithMaxRetries\(0\) on the client, or drop this loop`
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

// BriefOnce retries b.BriefOnce, whose SDK call (in b) uses package c's
// client with retries off: quiet.
func BriefOnce(ctx context.Context, text string) (string, error) {
	var err error
	for i := 0; i < 3; i++ {
		var s string
		if s, err = b.BriefOnce(ctx, text); err == nil {
			return s, nil
		}
		time.Sleep(time.Duration(i+1) * time.Second)
	}
	return "", err
}

// Direct retries a call on package c's client variable (SDK default).
func Direct(ctx context.Context, q string) (string, error) {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at a/a.go:66 wraps openai Chat.Completions.New at a/a.go:67, which retries 2 more times by default \(client built at c/c.go:54 \(by c.Client\)\): up to 9 requests per call; pick one layer: option.WithMaxRetries\(0\) on the client, or drop this loop`
		resp, e := c.Client.Chat.Completions.New(ctx, params(q))
		if e == nil {
			return resp.Choices[0].Message.Content, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return "", err
}

// DirectOff retries a call on package c's client with retries off: quiet.
func DirectOff(ctx context.Context, q string) (string, error) {
	var err error
	for i := 0; i < 3; i++ {
		resp, e := c.Off.Chat.Completions.New(ctx, params(q))
		if e == nil {
			return resp.Choices[0].Message.Content, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return "", err
}
