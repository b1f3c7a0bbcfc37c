// Package oai is a provider on openai-go, whose client keeps the SDK's
// default of 2 retries.
package oai

import (
	"context"

	"github.com/openai/openai-go/v3"
)

type Client struct{ c openai.Client }

func New() *Client { return &Client{c: openai.NewClient()} }

func (c *Client) Name() string { return "openai" }

func (c *Client) Complete(ctx context.Context, q string) (string, error) {
	resp, err := c.c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	})
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}
