package llm

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// AskLoop: an own 3-attempt loop around a client with the SDK default (2
// retries). One logical request becomes up to 9 HTTP requests.
func AskLoop(ctx context.Context, q string) (string, error) {
	client := openai.NewClient(option.WithAPIKey("k"))
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop \(3 attempts\) at llm/local.go:16 wraps openai Chat.Completions.New at llm/local.go:17, which retries 2 more times by default \(client built at llm/local.go:14\): up to 9 requests per call; pick one layer: option.WithMaxRetries\(0\) on the client, or drop this loop`
		resp, e := client.Chat.Completions.New(ctx, params(q))
		if e == nil {
			return text(resp), nil
		}
		err = e
		time.Sleep(time.Second << attempt)
	}
	return "", err
}

// AskLoopOff: the same loop, the SDK's retries off at construction: one
// layer, quiet.
func AskLoopOff(ctx context.Context, q string) (string, error) {
	client := openai.NewClient(option.WithAPIKey("k"), option.WithMaxRetries(0))
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		resp, e := client.Chat.Completions.New(ctx, params(q))
		if e == nil {
			return text(resp), nil
		}
		err = e
		time.Sleep(time.Second << attempt)
	}
	return "", err
}

// AskLoopCallOff: retries off on the call itself: quiet.
func AskLoopCallOff(ctx context.Context, q string) (string, error) {
	client := openai.NewClient(option.WithAPIKey("k"))
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		resp, e := client.Chat.Completions.New(ctx, params(q), option.WithMaxRetries(0))
		if e == nil {
			return text(resp), nil
		}
		err = e
		time.Sleep(time.Second << attempt)
	}
	return "", err
}

// AskOnce: the SDK alone retries: one layer, quiet.
func AskOnce(ctx context.Context, q string) (string, error) {
	client := openai.NewClient(option.WithAPIKey("k"))
	resp, err := client.Chat.Completions.New(ctx, params(q))
	if err != nil {
		return "", err
	}
	return text(resp), nil
}
