// Package quiet implements core's interfaces without a second layer.
package quiet

import (
	"context"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"example.com/t/iface/core"
)

var (
	_ core.Model    = (*Model)(nil)
	_ core.Store    = (*Store)(nil)
	_ core.Notifier = (*Notifier)(nil)
)

// Model turns the SDK's retries off: core's loop is the only layer.
type Model struct{ c openai.Client }

func New() *Model { return &Model{c: openai.NewClient(option.WithMaxRetries(0))} }

func (m *Model) Generate(ctx context.Context, prompt string) (string, error) {
	resp, err := m.c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	})
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

// Store makes one request per Put.
type Store struct{ base string }

func (s *Store) Put(ctx context.Context, key, val string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, s.base+"/"+key, strings.NewReader(val))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Notifier retries, but core only logs its failure: nothing multiplies.
type Notifier struct{ c openai.Client }

func (n *Notifier) Notify(ctx context.Context, msg string) error {
	_, err := n.c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(msg)},
	})
	return err
}

// Generate has the method's name but not its signature: no Model.
type Other struct{ c openai.Client }

func (o *Other) Generate(prompt string) error {
	_, err := o.c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	})
	return err
}
