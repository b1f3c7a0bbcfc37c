// Package anth holds the anthropic-sdk-go and cenkalti/backoff/v4 cases.
package anth

import (
	"context"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/cenkalti/backoff/v4"
)

func params(q string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet5_5,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(q))},
	}
}

// Agent holds an anthropic client with the SDK default (2 retries).
type Agent struct {
	c anthropic.Client
}

// NewAgent builds the client.
func NewAgent() *Agent {
	return &Agent{c: anthropic.NewClient(
		option.WithAPIKey("k"),
	)}
}

// Ask wraps the SDK call in backoff.Retry with 4 retries: 5 x 3.
func (a *Agent) Ask(ctx context.Context, q string) (*anthropic.Message, error) {
	var out *anthropic.Message
	b := backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4), ctx)
	err := backoff.Retry(func() error { // want `backoff.Retry \(5 attempts\) at anth/anth.go:37 wraps anthropic Messages.New at anth/anth.go:38, which retries 2 more times by default \(client built at anth/anth.go:28\): up to 15 requests per call; pick one layer: option.WithMaxRetries\(0\) on the client, or drop this backoff.Retry`
		m, err := a.c.Messages.New(ctx, params(q))
		if err != nil {
			return err
		}
		out = m
		return nil
	}, b)
	return out, err
}

// Lean holds a client whose retries are off.
type Lean struct {
	c anthropic.Client
}

// NewLean builds the client without SDK retries.
func NewLean() *Lean {
	return &Lean{c: anthropic.NewClient(option.WithAPIKey("k"), option.WithMaxRetries(0))}
}

// Ask: the same backoff.Retry around a client with retries off: quiet.
func (a *Lean) Ask(ctx context.Context, q string) (*anthropic.Message, error) {
	var out *anthropic.Message
	b := backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4), ctx)
	err := backoff.Retry(func() error {
		m, err := a.c.Messages.New(ctx, params(q))
		if err != nil {
			return err
		}
		out = m
		return nil
	}, b)
	return out, err
}

// count reads local state only.
func (a *Lean) count(n *int) error {
	*n++
	return nil
}

// Local: backoff.Retry around a function that only touches local state:
// quiet.
func (a *Lean) Local() error {
	n := 0
	return backoff.Retry(func() error { return a.count(&n) }, backoff.WithMaxRetries(backoff.NewConstantBackOff(0), 3))
}

// AskForever: backoff.Retry with the library default (no attempt limit,
// 15 minutes of elapsed time) around the SDK's own retries.
func (a *Agent) AskForever(ctx context.Context, q string) error {
	return backoff.Retry(func() error { // want `backoff.Retry \(unbounded attempts within 15m\) at anth/anth.go:89 wraps anthropic Messages.New at anth/anth.go:90, which retries 2 more times by default \(client built at anth/anth.go:28\): up to 3 requests per attempt of this layer, whose attempts are unbounded within 15m; pick one layer: option.WithMaxRetries\(0\) on the client, or drop this backoff.Retry`
		_, err := a.c.Messages.New(ctx, params(q))
		return err
	}, backoff.NewExponentialBackOff())
}

// ping makes one SDK call; the SDK retries it.
func (a *Agent) ping() error {
	_, err := a.c.Messages.New(context.Background(), params("ping"))
	return err
}

// Ping hands the operation to backoff.Retry by name.
func (a *Agent) Ping() error {
	return backoff.Retry(a.ping, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 2)) // want `backoff.Retry \(3 attempts\) at anth/anth.go:103 wraps anthropic Messages.New at anth/anth.go:97 \(through anth.\(\*Agent\).ping\), which retries 2 more times by default \(client built at anth/anth.go:28\): up to 9 requests per call`
}
