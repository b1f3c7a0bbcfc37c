// Package search uses clients built in package llm.
package search

import (
	"context"

	"example.com/rm/sdks/xpkg/llm"
	"github.com/openai/openai-go/v3"
)

var params = openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o}

type Tool struct{ c openai.Client }

func NewTool() *Tool { return &Tool{c: llm.New()} }

func (t *Tool) Off(ctx context.Context) error {
	_, err := t.c.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=1 .*assumed=false client=- .*notes=client built at llm/llm.go:14 \(by llm\.New\)`
	return err
}

func Default(ctx context.Context) error {
	_, err := llm.Default.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=3 .*assumed=false client=- .*notes=client built at llm/llm.go:18 \(by llm\.Default\)`
	return err
}

func Opaque(ctx context.Context) error {
	_, err := llm.Opaque().Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=3 .*assumed=true`
	return err
}

func Get(ctx context.Context) error {
	_, err := llm.HTTP().Get("http://x") // want `^http\.Client\.Get \(retryablehttp StandardClient\) kind=client attempts=3 waits=1s,2s .*assumed=false .*notes=.*client built at llm/llm.go:24 \(by llm\.HTTP\)`
	return err
}

func Field(ctx context.Context, s *llm.Service) error {
	_, err := s.Client.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=2 .*assumed=false client=- .*notes=client built at llm/llm.go:39 \(by llm\.Client field\)`
	return err
}
