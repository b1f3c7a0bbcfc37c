// Package sdkerr retries SDK errors by hand, with the SDK's own retries off.
package sdkerr

import (
	"context"
	"errors"
	"math/rand"
	"net/http"
	"strconv"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func jitter(attempt int) time.Duration {
	return time.Duration(rand.Int63n(int64(time.Second << attempt)))
}

// (3) 429 from *openai.Error retried on a curve; the Response's
// Retry-After is never read.
func complete(ctx context.Context, client openai.Client, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	for attempt := 0; attempt < 4; attempt++ {
		res, err := client.Chat.Completions.New(ctx, p, option.WithMaxRetries(0))
		if err == nil {
			return res, nil
		}
		var apierr *openai.Error
		if !errors.As(err, &apierr) || apierr.StatusCode != http.StatusTooManyRequests { // want `retry-after ignored: retry loop retries 429`
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(jitter(attempt)):
		}
	}
	return nil, errors.New("rate limited")
}

// quiet: the same loop reads retry-after-ms first.
func completeHonours(ctx context.Context, client openai.Client, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	for attempt := 0; attempt < 4; attempt++ {
		res, err := client.Chat.Completions.New(ctx, p, option.WithMaxRetries(0))
		if err == nil {
			return res, nil
		}
		var apierr *openai.Error
		if !errors.As(err, &apierr) || apierr.StatusCode != http.StatusTooManyRequests {
			return nil, err
		}
		wait := jitter(attempt)
		if ms, err := strconv.Atoi(apierr.Response.Header.Get("retry-after-ms")); err == nil {
			wait = time.Duration(ms) * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
	return nil, errors.New("rate limited")
}

// (3) anthropic *Error, 503 and 429 in a switch.
func message(ctx context.Context, client anthropic.Client, p anthropic.MessageNewParams) (*anthropic.Message, error) {
	for attempt := 0; attempt < 4; attempt++ {
		msg, err := client.Messages.New(ctx, p, aoption.WithMaxRetries(0))
		if err == nil {
			return msg, nil
		}
		var apierr *anthropic.Error
		if !errors.As(err, &apierr) {
			return nil, err
		}
		switch apierr.StatusCode {
		case http.StatusTooManyRequests, http.StatusServiceUnavailable: // want `retry-after ignored: retry loop retries 429 and 503`
		default:
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(jitter(attempt)):
		}
	}
	return nil, errors.New("overloaded")
}
