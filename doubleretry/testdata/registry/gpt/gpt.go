// Package gpt registers a model on openai-go, whose client keeps the SDK's
// default of 2 retries.
package gpt

import (
	"context"

	"github.com/openai/openai-go/v3"

	"example.com/t/registry/reg"
)

func init() { reg.Register("gpt", &model{c: openai.NewClient()}) }

type model struct{ c openai.Client }

func (m *model) Generate(ctx context.Context, prompt string) (string, error) {
	resp, err := m.c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	})
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}
