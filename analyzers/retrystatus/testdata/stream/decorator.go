package stream

import (
	"context"
	"errors"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Streamer is the package's provider interface: other packages open
// streams through it.
type Streamer interface {
	Open(ctx context.Context, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error)
}

type direct struct{ c *openai.Client }

func (d direct) Open(ctx context.Context, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	return d.c.CreateChatCompletionStream(ctx, req)
}

func transientOpen(err error) bool {
	var apiErr *openai.APIError
	return errors.As(err, &apiErr) && apiErr.HTTPStatusCode >= 500
}

// retrying decorates a Streamer with retries of the open. Quiet: its Open
// serves the exported Streamer, so the stream goes to callers in other
// packages, which this package cannot see and which may retry it.
type retrying struct{ inner Streamer }

func (r retrying) Open(ctx context.Context, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	var err error
	for i := 0; i < 3; i++ {
		var s *openai.ChatCompletionStream
		if s, err = r.inner.Open(ctx, req); err == nil {
			return s, nil
		}
		if !transientOpen(err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, err
}

func Decorate(s Streamer) Streamer { return retrying{inner: s} }

// opener is the same decorator behind an interface of this package alone:
// the stream's only readers are here, after the retry.
type opener interface {
	open(ctx context.Context, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error)
}

type directOpener struct{ c *openai.Client }

func (d directOpener) open(ctx context.Context, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	return d.c.CreateChatCompletionStream(ctx, req)
}

type retryingOpener struct{ inner opener }

func (r retryingOpener) open(ctx context.Context, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	var err error
	for i := 0; i < 3; i++ {
		var s *openai.ChatCompletionStream
		if s, err = r.inner.open(ctx, req); err == nil { // want `retry loop at stream/decorator.go:70 retries opening the stream \(r.inner.open\) but never reads it`
			return s, nil
		}
		if !transientOpen(err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil, err
}

func answer(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	var o opener = retryingOpener{inner: directOpener{c: c}}
	s, err := o.open(ctx, req)
	if err != nil {
		return "", err
	}
	defer s.Close()
	return drain(s)
}
