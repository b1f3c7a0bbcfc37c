// Package quiet holds lookalikes that must not be reported: retries one
// after the other, retries around local work, fallback chains and polling
// loops around a retrying SDK call.
package quiet

import (
	"context"
	"errors"
	"log"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

var client = openai.NewClient(option.WithAPIKey("k"))

func params(model, q string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	}
}

func ping(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// Sequential: two retries one after the other, neither inside the other.
func Sequential(ctx context.Context, a, b string) error {
	bo := backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3)
	if err := backoff.Retry(func() error { return ping(a) }, bo); err != nil {
		return err
	}
	for i := 0; i < 3; i++ {
		if err := ping(b); err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	// The SDK retries on its own, after the loop, not inside it.
	_, err := client.Chat.Completions.New(ctx, params(openai.ChatModelGPT4o, a))
	return err
}

var attempts int

func logAttempt(i int) { log.Printf("attempt %d", i); attempts++ }

type cache struct{ m map[string]string }

func (c *cache) get(k string) (string, error) {
	if v, ok := c.m[k]; ok {
		return v, nil
	}
	return "", errors.New("miss")
}

// LocalOnly: a retry around a function that only logs and reads local state.
func LocalOnly(c *cache, k string) (string, error) {
	var err error
	for i := 0; i < 3; i++ {
		logAttempt(i)
		var v string
		if v, err = c.get(k); err == nil {
			return v, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return "", err
}

// Fallback tries each model once, without waiting: a fallback chain, not a
// retry, around a call the SDK retries.
func Fallback(ctx context.Context, q string) (string, error) {
	var last error
	for _, m := range []string{openai.ChatModelGPT4o, openai.ChatModelGPT4oMini} {
		resp, err := client.Chat.Completions.New(ctx, params(m, q))
		if err != nil {
			last = err
			continue
		}
		return resp.Choices[0].Message.Content, nil
	}
	return "", last
}

// Poll waits for a batch to finish: a polling loop (it stops on the first
// error and repeats on success), not a retry, around a retrying SDK call.
func Poll(ctx context.Context, id string) (*openai.Batch, error) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		b, err := client.Batches.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if b.Status == openai.BatchStatusCompleted || b.Status == openai.BatchStatusFailed {
			return b, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// fetchRaw makes one plain HTTP request.
func fetchRaw(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	return resp.Status, nil
}

func complete(ctx context.Context, q string) (string, error) {
	resp, err := client.Chat.Completions.New(ctx, params(openai.ChatModelGPT4o, q))
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

// AfterSuccess retries fetchRaw only; the SDK call runs once, after the
// fetch succeeded, and its failure ends the loop: nothing multiplies.
func AfterSuccess(ctx context.Context, url string) (string, error) {
	var err error
	for i := 0; i < 3; i++ {
		var raw string
		if raw, err = fetchRaw(url); err == nil {
			return complete(ctx, raw)
		}
		time.Sleep(time.Second)
	}
	return "", err
}

// Reviewed: a nesting someone reviewed and silenced, with a reason.
func Reviewed(ctx context.Context, q string) error {
	var err error
	//retryvet:ignore doubleretry reviewed: the batch job owns its budget, two tries of a short call
	for i := 0; i < 2; i++ {
		if _, err = complete(ctx, q); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
