// Package anthropicv2 exercises github.com/anthropics/anthropic-sdk-go/v2.
package anthropicv2

import (
	"context"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

func Ask(ctx context.Context, c *anthropic.Client) error {
	_, err := c.Messages.New(ctx, anthropic.MessageNewParams{}) // want `^anthropic Messages\.New kind=sdk attempts=3 .*assumed=true`
	return err
}

func Off(ctx context.Context) error {
	c := anthropic.NewClient(option.WithMaxRetries(0))
	_, err := c.Messages.New(ctx, anthropic.MessageNewParams{}) // want `^anthropic Messages\.New kind=sdk attempts=1 .*assumed=false`
	return err
}
