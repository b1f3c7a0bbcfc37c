// Package c builds the SDK clients: it knows nothing of retries.
package c

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func params(q string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	}
}

// LLM wraps an openai client with the SDK default retries.
type LLM struct{ oa openai.Client }

// New builds the client.
func New(key string) *LLM {
	return &LLM{oa: openai.NewClient(option.WithAPIKey(key))}
}

// Ask makes one SDK call; the SDK retries it twice more.
func (l *LLM) Ask(ctx context.Context, q string) (string, error) {
	resp, err := l.oa.Chat.Completions.New(ctx, params(q))
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

// QuietLLM wraps an openai client with the SDK's retries off.
type QuietLLM struct{ oa openai.Client }

// NewQuiet builds the client without SDK retries.
func NewQuiet(key string) *QuietLLM {
	return &QuietLLM{oa: openai.NewClient(option.WithAPIKey(key), option.WithMaxRetries(0))}
}

// Ask makes exactly one request.
func (l *QuietLLM) Ask(ctx context.Context, q string) (string, error) {
	resp, err := l.oa.Chat.Completions.New(ctx, params(q))
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

// Client is a process-wide openai client with the SDK default retries
// (used from other packages directly: see ../gaps).
var Client = openai.NewClient(option.WithAPIKey("k"))

// Off is a process-wide openai client with the SDK's retries off.
var Off = openai.NewClient(option.WithAPIKey("k"), option.WithMaxRetries(0))
