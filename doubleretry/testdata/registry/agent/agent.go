// Package agent retries models and caches it looks up in a registry; the
// providers are linked in by blank imports, so their summaries reach it.
package agent

import (
	"context"
	"time"

	_ "example.com/t/registry/gpt"
	_ "example.com/t/registry/mem"
	"example.com/t/registry/reg"
)

// Ask retries the registered model, whose openai client retries inside.
func Ask(ctx context.Context, name, q string) (string, error) {
	m := reg.Lookup(name)
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop \(3 attempts\) at agent/agent.go:\d+ wraps openai Chat.Completions.New at gpt/gpt.go:\d+ \(through reg.Model.Generate as gpt.\(\*model\).Generate\), which retries 2 more times .*: up to 9 requests per call`
		var s string
		if s, err = m.Generate(ctx, q); err == nil {
			return s, nil
		}
		time.Sleep(time.Second << attempt)
	}
	return "", err
}

// Remember retries the registered cache, whose one implementation makes
// no retry: quiet.
func Remember(ctx context.Context, name, k, v string) error {
	c := reg.LookupCache(name)
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = c.Put(ctx, k, v); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
