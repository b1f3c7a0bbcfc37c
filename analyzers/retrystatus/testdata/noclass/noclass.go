// Package noclass holds remote retries with no classifier at all, beside
// the ones that read the error or the status before retrying.
package noclass

import (
	"context"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/openai/openai-go/v3"
)

// Every error of the SDK is retried: a 401 from a bad key three times.
func Blind(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry without a classifier: retry loop retries every error of openai.\(\*ChatCompletionService\).New, and the SDK returns every 4xx as an error, so 400, 401, 403 and 413 .* are retried and fail the same way on each of 3 attempts`
		var out *openai.ChatCompletion
		out, err = c.Chat.Completions.New(ctx, p)
		if err == nil {
			return out, nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, err
}

// The error's status is read: quiet.
func Classified(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var out *openai.ChatCompletion
		out, err = c.Chat.Completions.New(ctx, p)
		if err == nil {
			return out, nil
		}
		var apiErr *openai.Error
		if errors.As(err, &apiErr) && (apiErr.Code == "insufficient_quota" || apiErr.StatusCode < 500 && apiErr.StatusCode != 429) {
			return nil, err
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, err
}

func retryable(err error) bool {
	var apiErr *openai.Error
	return !errors.As(err, &apiErr) || apiErr.StatusCode >= 500
}

// A helper decides: quiet.
func ViaHelper(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var out *openai.ChatCompletion
		out, err = c.Chat.Completions.New(ctx, p)
		if err == nil {
			return out, nil
		}
		if !retryable(err) {
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, err
}

// backoff.Retry around the SDK with no Permanent: every error retried.
func Library(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) error {
	return backoff.Retry(func() error { // want `retry without a classifier: backoff.Retry retries every error of openai.\(\*ChatCompletionService\).New`
		_, err := c.Chat.Completions.New(ctx, p)
		return err
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4), ctx))
}

// backoff.Permanent on what is not worth retrying: quiet.
func LibraryPermanent(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) error {
	return backoff.Retry(func() error {
		_, err := c.Chat.Completions.New(ctx, p)
		var apiErr *openai.Error
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4), ctx))
}

// Every status but 200 is retried.
func AnythingButOK(c *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ { // want `retry without a classifier: retry loop retries every status of http.Client.Do but success, so 400, 401, 403 and 413 .* on each of 4 attempts`
		resp, err := c.Do(req)
		if err == nil && resp.StatusCode == http.StatusOK {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

// Only transport errors are retried; any status is returned: quiet (no
// 4xx is sent twice).
func TransportOnly(c *http.Client, req *http.Request) (*http.Response, error) {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		var resp *http.Response
		resp, err = c.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}

// 5xx retried, the rest returned: a classifier. Quiet.
func ServerErrors(c *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := c.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

// A local file: not remote, no status to classify. Quiet.
func ReadLocked(name string) ([]byte, error) {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		var b []byte
		if b, err = os.ReadFile(name); err == nil {
			return b, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
