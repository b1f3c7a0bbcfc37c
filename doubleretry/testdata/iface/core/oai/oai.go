// Package oai implements core.Model on openai-go with the SDK's default
// of 2 retries: core's 3 attempts become 9 requests.
package oai

import (
	"context"

	"github.com/openai/openai-go/v3"

	"example.com/t/iface/core"
)

var _ core.Model = (*Model)(nil)

type Model struct{ c openai.Client }

func New() *Model { return &Model{c: openai.NewClient()} }

func (m *Model) Generate(ctx context.Context, prompt string) (string, error) { // want `retry loop \(3 attempts\) at core/core.go:39 retries core.Model.Generate, and this implementation of it wraps openai Chat.Completions.New at oai/oai.go:20, which retries 2 more times by default \(client built at oai/oai.go:17\): up to 9 requests per call; pick one layer: option.WithMaxRetries\(0\) on the client, or drop the retry loop at core/core.go:39`
	resp, err := m.c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	})
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}
