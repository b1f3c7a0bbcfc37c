// Package helper hands SDK calls to a retry helper: a function that
// retries the operation it is given (as clusterctl's
// retryWithExponentialBackoff does).
package helper

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// withRetry calls op up to 3 times, 2s apart.
func withRetry(ctx context.Context, op func() error) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = op(); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return err
}

var client = openai.NewClient(option.WithAPIKey("k"))

var quietClient = openai.NewClient(option.WithAPIKey("k"), option.WithMaxRetries(0))

// Ask hands the helper an SDK call that retries by default: 3 x 3.
func Ask(ctx context.Context, q string) error {
	return withRetry(ctx, func() error { // want `retry helper helper.withRetry \(3 attempts\) at helper/helper.go:\d+ wraps openai Chat.Completions.New at helper/helper.go:\d+, which retries 2 more times by default \(client built at helper/helper.go:\d+\): up to 9 requests per call`
		_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o})
		return err
	})
}

// AskQuiet: the SDK's retries are off, one layer: quiet.
func AskQuiet(ctx context.Context, q string) error {
	return withRetry(ctx, func() error {
		_, err := quietClient.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o})
		return err
	})
}

// withAttempts takes its attempt count from the caller: what it retries
// is said once, here, not at every call.
func withAttempts(ctx context.Context, n int, op func() error) error {
	var err error
	for i := 0; i < n; i++ { // want `retry loop at helper/helper.go:\d+ wraps openai Chat.Completions.New at helper/helper.go:\d+ \(through helper.withAttempts call at helper/helper.go:\d+\), which retries 2 more times by default \(client built at helper/helper.go:\d+\): up to 3 requests per attempt of this layer, whose attempts are not known`
		if err = op(); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// AskN: the helper's count is an argument; the call site stays quiet
// (every call would repeat an "unknown × 3" about the same helper), the
// helper's loop says it.
func AskN(ctx context.Context) error {
	return withAttempts(ctx, 3, func() error {
		_, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o})
		return err
	})
}
