package stream

import (
	"context"

	"github.com/cenkalti/backoff/v4"
	openai "github.com/sashabaranov/go-openai"

	"example.com/t/stream/retryx"
)

// Think hands the open to the project's retry helper, which returns the
// stream: its Recv errors come after the helper has returned.
func Think(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	stream, err := retryx.Do(ctx, retryx.Config{MaxRetries: 3}, func() (*openai.ChatCompletionStream, error) { // want `retry without a classifier: .* retries every error of openai.\(\*Client\).CreateChatCompletionStream,`
		return c.CreateChatCompletionStream(ctx, req) // want `retry helper retryx.Do at stream/helper.go:15 retries opening the stream \(c.CreateChatCompletionStream\) but never reads it: .* come from stream.Recv\(\) after the retried region`
	})
	if err != nil {
		return "", err
	}
	defer stream.Close()
	return drain(stream)
}

// Plan does the same through backoff's RetryWithData.
func Plan(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	s, err := backoff.RetryWithData(func() (*openai.ChatCompletionStream, error) { // want `retry without a classifier: .* retries every error of openai.\(\*Client\).CreateChatCompletionStream,`
		return c.CreateChatCompletionStream(ctx, req) // want `backoff.RetryWithData at stream/helper.go:27 retries opening the stream \(c.CreateChatCompletionStream\) but never reads it: .* come from s.Recv\(\) after the retried region`
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
	if err != nil {
		return "", err
	}
	defer s.Close()
	return drain(s)
}

// Quiet: the operation handed to the helper reads the whole stream, so
// an error mid-answer is an error of the attempt.
func Reflect(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	return retryx.Do(ctx, retryx.Config{MaxRetries: 3}, func() (string, error) { // want `retry without a classifier: .* retries every error of openai.\(\*Client\).CreateChatCompletionStream,`
		stream, err := c.CreateChatCompletionStream(ctx, req)
		if err != nil {
			return "", err
		}
		defer stream.Close()
		return drain(stream)
	})
}

// Quiet: the helper's stream goes back to Converse, which reads it
// inside a retry of its own.
func connect(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	stream, err := retryx.Do(ctx, retryx.Config{MaxRetries: 1}, func() (*openai.ChatCompletionStream, error) { // want `retry without a classifier: .* retries every error of openai.\(\*Client\).CreateChatCompletionStream,`
		return c.CreateChatCompletionStream(ctx, req)
	})
	return stream, err
}

func Converse(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	return retryx.Do(ctx, retryx.Config{MaxRetries: 2}, func() (string, error) {
		stream, err := connect(ctx, c, req)
		if err != nil {
			return "", err
		}
		defer stream.Close()
		return drain(stream)
	})
}

// Quiet: the helper retries a whole answer (no stream comes out of it).
func Summarise(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	return retryx.Do(ctx, retryx.Config{MaxRetries: 3}, func() (openai.ChatCompletionResponse, error) { // want `retry without a classifier: .* retries every error of openai.\(\*Client\).CreateChatCompletion,`
		return c.CreateChatCompletion(ctx, req)
	})
}

// Quiet: an exported function hands the stream to other packages' callers,
// which this package cannot see and which may retry it.
func Open(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	return retryx.Do(ctx, retryx.Config{MaxRetries: 3}, func() (*openai.ChatCompletionStream, error) { // want `retry without a classifier: .* retries every error of openai.\(\*Client\).CreateChatCompletionStream,`
		stream, err := c.CreateChatCompletionStream(ctx, req)
		return stream, err
	})
}

// retryx and backoff above retry every error of go-openai, a 401 too:
// no-classifier reports each of them beside what the stream check says.
