// Package quota holds OpenAI retries whose classifier returns a tuple
// (retry, delay, err) and retries every 429, beside one that reads the
// error's code first.
package quota

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/openai/openai-go/v3"
)

const maxRetries = 8

type client struct{ c openai.Client }

func (o *client) Send(ctx context.Context, params openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	attempts := 0
	for {
		attempts++
		resp, err := o.c.Chat.Completions.New(ctx, params)
		if err != nil {
			retry, after, retryErr := o.shouldRetry(attempts, err)
			if retryErr != nil {
				return nil, retryErr
			}
			if retry {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(time.Duration(after) * time.Millisecond):
					continue
				}
			}
			return nil, retryErr
		}
		return resp, nil
	}
}

func (o *client) shouldRetry(attempts int, err error) (bool, int64, error) {
	var apierr *openai.Error
	if !errors.As(err, &apierr) {
		return false, 0, err
	}
	if apierr.StatusCode != 429 && apierr.StatusCode != 500 { // want `retry decision retries every 429 without reading the error's code or type: an exhausted quota \(insufficient_quota\)`
		return false, 0, err
	}
	if attempts > maxRetries {
		return false, 0, fmt.Errorf("maximum retry attempts reached: %d", maxRetries)
	}
	return true, int64(2000 * (1 << (attempts - 1))), nil
}

// The same retry whose classifier reads the error's code first: an
// exhausted quota gives up, a rate limit waits. Quiet.
func (o *client) SendRead(ctx context.Context, params openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	for attempts := 1; ; attempts++ {
		resp, err := o.c.Chat.Completions.New(ctx, params)
		if err == nil {
			return resp, nil
		}
		retry, after, retryErr := o.shouldRetryRead(attempts, err)
		if retryErr != nil {
			return nil, retryErr
		}
		if !retry {
			return nil, err
		}
		time.Sleep(time.Duration(after) * time.Millisecond)
	}
}

func (o *client) shouldRetryRead(attempts int, err error) (bool, int64, error) {
	var apierr *openai.Error
	if !errors.As(err, &apierr) || attempts > maxRetries {
		return false, 0, err
	}
	if apierr.StatusCode == 429 && apierr.Code == "insufficient_quota" {
		return false, 0, err
	}
	if apierr.StatusCode != 429 && apierr.StatusCode < 500 {
		return false, 0, err
	}
	return true, 1000, nil
}
