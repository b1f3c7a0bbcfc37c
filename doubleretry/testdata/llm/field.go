package llm

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Client keeps the SDK client in a field set by its constructor.
type Client struct {
	oa openai.Client
}

// New builds the client with the SDK default retries.
func New(key string) *Client {
	return &Client{oa: openai.NewClient(option.WithAPIKey(key))}
}

// Complete makes one SDK call; the SDK retries it.
func (c *Client) Complete(ctx context.Context, q string) (string, error) {
	resp, err := c.oa.Chat.Completions.New(ctx, params(q))
	if err != nil {
		return "", err
	}
	return text(resp), nil
}

// Tool wraps Complete in its own retry: the nesting goes through a method.
func (c *Client) Tool(ctx context.Context, q string) (string, error) {
	var last error
	for i := range 4 { // want `retry loop \(4 attempts\) at llm/field.go:33 wraps openai Chat.Completions.New at llm/field.go:23 \(through llm.\(\*Client\).Complete\), which retries 2 more times by default \(client built at llm/field.go:18\): up to 12 requests per call`
		out, err := c.Complete(ctx, q)
		if err == nil {
			return out, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
	return "", last
}

// Quiet keeps its client with retries off, built in its constructor.
type Quiet struct {
	oa openai.Client
}

// NewQuiet turns the SDK's retries off: the caller owns the policy.
func NewQuiet(key string) *Quiet {
	return &Quiet{oa: openai.NewClient(option.WithAPIKey(key), option.WithMaxRetries(0))}
}

// Tool retries a client whose own retries are off: quiet.
func (c *Quiet) Tool(ctx context.Context, q string) (string, error) {
	var last error
	for i := range 4 {
		resp, err := c.oa.Chat.Completions.New(ctx, params(q))
		if err == nil {
			return text(resp), nil
		}
		last = err
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
	return "", last
}
