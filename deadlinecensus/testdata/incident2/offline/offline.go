// Package offline answers from a local table: no request, no retry.
package offline

import (
	"context"
	"strings"
)

// Model is the local stand-in used when the hosted model is off.
type Model struct {
	Answers map[string]string
}

// Ask looks the question up, stopping when ctx is done.
func (m *Model) Ask(ctx context.Context, q string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return m.Answers[strings.ToLower(q)], nil
}
