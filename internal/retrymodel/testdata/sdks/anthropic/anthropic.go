// Package anthropic exercises github.com/anthropics/anthropic-sdk-go.
package anthropic

import (
	"context"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

type Agent struct {
	c anthropic.Client
}

func New() *Agent {
	a := &Agent{}
	a.c = anthropic.NewClient(option.WithMaxRetries(3))
	return a
}

func (a *Agent) Ask(ctx context.Context) (*anthropic.Message, error) {
	return a.c.Messages.New(ctx, anthropic.MessageNewParams{MaxTokens: 10, Model: anthropic.ModelClaudeSonnet4_5}) // want `^anthropic Messages\.New kind=sdk attempts=4 waits=500ms,1s,2s jitter=yes deadline=yes cancel=yes retryafter=yes .*assumed=false client=anthropic/anthropic.go:19`
}

func (a *Agent) Off(ctx context.Context) (*anthropic.Message, error) {
	return a.c.Messages.New(ctx, anthropic.MessageNewParams{}, option.WithMaxRetries(0)) // want `^anthropic Messages\.New kind=sdk attempts=1 waits=- `
}

func Default(ctx context.Context) error {
	c := anthropic.NewClient()
	_, err := c.Beta.Messages.New(ctx, anthropic.BetaMessageNewParams{}) // want `^anthropic Beta\.Messages\.New kind=sdk attempts=3 waits=500ms,1s .*assumed=false client=anthropic/anthropic.go:32`
	return err
}

func timeout(ctx context.Context) error {
	c := anthropic.NewClient(option.WithHTTPClient(&http.Client{Timeout: 45 * time.Second}))
	_, err := c.Messages.New(ctx, anthropic.MessageNewParams{}) // want `^anthropic Messages\.New kind=sdk attempts=3 .*perattempt=45s`
	return err
}
