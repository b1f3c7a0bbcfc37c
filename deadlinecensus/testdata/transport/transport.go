// Package transport sends messages over HTTP. Its sender satisfies
// cases.Sender without importing it, so the retry model, which reads one
// package at a time, cannot see that cases.Deliver's operation is remote.
package transport

import (
	"context"
	"net/http"
	"strings"
)

// HTTP posts messages.
type HTTP struct {
	c   *http.Client
	url string
}

// New returns an HTTP sender.
func New(url string) *HTTP { return &HTTP{c: http.DefaultClient, url: url} }

// Send posts one message.
func (s *HTTP) Send(ctx context.Context, msg string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(msg))
	if err != nil {
		return err
	}
	resp, err := s.c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
