// Package reg is a registry of models: providers register themselves in
// their init functions, and callers look a model up by name. reg imports
// no provider, so its interface's own summary knows no implementation.
package reg

import (
	"context"
	"sync"
)

// Model generates text.
type Model interface {
	Generate(ctx context.Context, prompt string) (string, error)
}

// Cache stores values.
type Cache interface {
	Put(ctx context.Context, key, val string) error
}

var (
	mu     sync.Mutex
	models = map[string]Model{}
	caches = map[string]Cache{}
)

// Register adds a model under a name.
func Register(name string, m Model) {
	mu.Lock()
	defer mu.Unlock()
	models[name] = m
}

// RegisterCache adds a cache under a name.
func RegisterCache(name string, c Cache) {
	mu.Lock()
	defer mu.Unlock()
	caches[name] = c
}

// Lookup returns the model registered under name.
func Lookup(name string) Model {
	mu.Lock()
	defer mu.Unlock()
	return models[name]
}

// LookupCache returns the cache registered under name.
func LookupCache(name string) Cache {
	mu.Lock()
	defer mu.Unlock()
	return caches[name]
}
