// Package stream retries an SDK stream: the stream's opening request runs
// in the SDK's own retry loop, and its failure surfaces in stream.Err().
package stream

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func params(q string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	}
}

func Stream(ctx context.Context, q string, out chan<- string) error {
	client := openai.NewClient(option.WithAPIKey("k"))
	var err error
	for attempt := 0; attempt < 4; attempt++ { // want `retry loop \(4 attempts\) at stream/stream.go:23 wraps openai Chat.Completions.NewStreaming at stream/stream.go:24, which retries 2 more times .*: up to 12 requests per call`
		s := client.Chat.Completions.NewStreaming(ctx, params(q))
		for s.Next() {
			out <- s.Current().ID
		}
		err = s.Err()
		if err == nil {
			return nil
		}
		time.Sleep(time.Second << attempt)
	}
	return err
}

// StreamOwnRetries turns the SDK's retries off: one layer, quiet.
func StreamOwnRetries(ctx context.Context, q string, out chan<- string) error {
	client := openai.NewClient(option.WithAPIKey("k"), option.WithMaxRetries(0))
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		s := client.Chat.Completions.NewStreaming(ctx, params(q))
		for s.Next() {
			out <- s.Current().ID
		}
		err = s.Err()
		if err == nil {
			return nil
		}
		time.Sleep(time.Second << attempt)
	}
	return err
}

// Resume opens the stream once and re-reads only a local buffer on
// failure: the SDK call is not made again, so quiet.
func Resume(ctx context.Context, q string, out chan<- string) error {
	client := openai.NewClient(option.WithAPIKey("k"))
	s := client.Chat.Completions.NewStreaming(ctx, params(q))
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		buf := newBuffer(s.Current().ID)
		err = buf.Err()
		if err == nil {
			out <- buf.s
			return nil
		}
		time.Sleep(time.Second << attempt)
	}
	return err
}

type buffer struct{ s string }

func newBuffer(s string) *buffer { return &buffer{s: s} }

func (b *buffer) Err() error {
	if b.s == "" {
		return context.DeadlineExceeded
	}
	return nil
}
