// Package prov declares a provider interface and builds its
// implementations, which live in subpackages: a caller that imports only
// prov still sees, through the interface method's fact, that one of them
// retries.
package prov

import (
	"context"

	"example.com/t/iface/prov/echo"
	"example.com/t/iface/prov/oai"
)

type Provider interface {
	Complete(ctx context.Context, q string) (string, error)
	Name() string
}

// Store has only an implementation that does not retry.
type Store interface {
	Save(ctx context.Context, key string) error
}

func New(kind string) Provider {
	if kind == "openai" {
		return oai.New()
	}
	return echo.New()
}

func NewStore() Store { return echo.Store{} }
