// Package echo is a local provider: no remote call, no retry.
package echo

import (
	"context"
	"errors"
)

type Client struct{}

func New() *Client { return &Client{} }

func (*Client) Name() string { return "echo" }

func (*Client) Complete(ctx context.Context, q string) (string, error) {
	if q == "" {
		return "", errors.New("empty")
	}
	return q, nil
}

type Store struct{}

func (Store) Save(ctx context.Context, key string) error {
	if key == "" {
		return errors.New("no key")
	}
	return nil
}
