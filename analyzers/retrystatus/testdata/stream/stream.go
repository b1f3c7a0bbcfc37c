// Package stream holds retries that open a stream and hand it on unread,
// beside retries that read the stream inside the retried region or whose
// caller retries the stream it is given.
package stream

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// permanent reports an API error no retry fixes.
func permanent(err error) bool {
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.HTTPStatusCode < 500 && apiErr.HTTPStatusCode != 429 || apiErr.Type == "insufficient_quota"
}

func pause(ctx context.Context, attempt int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Second << attempt):
		return nil
	}
}

// openStream retries opening the stream and returns it: an error after
// the 200 reaches Answer's Recv, which nothing retries.
func openStream(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		stream, err := c.CreateChatCompletionStream(ctx, req) // want `retry loop at stream/stream.go:38 retries opening the stream \(c.CreateChatCompletionStream\) but never reads it: errors that arrive after the response starts \(an error event, a connection dropped mid-answer\) come from stream.Recv\(\) in the caller, after the return at stream/stream.go:41 and are never retried, so the caller gets a truncated answer; read the stream inside the retried region and retry on its error before any output is passed on`
		if err == nil {
			return stream, nil
		}
		if permanent(err) {
			return nil, err
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

func Answer(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	stream, err := openStream(ctx, c, req)
	if err != nil {
		return "", err
	}
	defer stream.Close()
	return drain(stream)
}

func drain(stream *openai.ChatCompletionStream) (string, error) {
	var out string
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(resp.Choices) > 0 {
			out += resp.Choices[0].Delta.Content
		}
	}
}

// Chat keeps the stream in a variable of the function and reads it after
// the loop.
func Chat(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	var stream *openai.ChatCompletionStream
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		stream, err = c.CreateChatCompletionStream(ctx, req) // want `retry loop at stream/stream.go:\d+ retries opening the stream \(c.CreateChatCompletionStream\) but never reads it: .* come from stream.Recv\(\) after the retried region`
		if err == nil || permanent(err) {
			break
		}
		if perr := pause(ctx, attempt); perr != nil {
			return "", perr
		}
	}
	if err != nil {
		return "", err
	}
	defer stream.Close()
	return drain(stream)
}

// Quiet: the stream is read inside the retried region, and its error
// decides the next attempt.
func ChatRetried(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		stream, err := c.CreateChatCompletionStream(ctx, req)
		if err == nil {
			var text string
			text, err = drain(stream)
			stream.Close()
			if err == nil {
				return text, nil
			}
		}
		if permanent(err) {
			return "", err
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return "", err
		}
	}
	return "", lastErr
}

// Quiet: dial retries the open and returns the stream to Complete, which
// reads it inside a retry of its own.
func dial(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (*openai.ChatCompletionStream, error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		stream, err := c.CreateChatCompletionStream(ctx, req)
		if err == nil {
			return stream, nil
		}
		if permanent(err) {
			return nil, err
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

func Complete(ctx context.Context, c *openai.Client, req openai.ChatCompletionRequest) (string, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		stream, err := dial(ctx, c, req)
		if err == nil {
			var text string
			text, err = drain(stream)
			stream.Close()
			if err == nil {
				return text, nil
			}
		}
		if permanent(err) {
			return "", err
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return "", err
		}
	}
	return "", lastErr
}

// Quiet: a row cursor (it has Scan) is no event stream: a query retry
// leaves a failure mid-result to the reader.
func Query(ctx context.Context, db *sql.DB) (*sql.Rows, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		rows, err := db.QueryContext(ctx, "SELECT id FROM jobs")
		if err == nil {
			return rows, nil
		}
		if errors.Is(err, sql.ErrConnDone) {
			return nil, err
		}
		lastErr = err
		if err := pause(ctx, attempt); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}
