// Package openai exercises github.com/openai/openai-go/v3.
package openai

import (
	"context"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

var params = openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o}

// A local client with the SDK defaults: 2 retries.
func local(ctx context.Context) error {
	client := openai.NewClient(option.WithAPIKey("k"))
	_, err := client.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=3 waits=500ms,1s jitter=yes deadline=yes cancel=yes retryafter=yes elapsed=- assumed=false client=openai/openai.go:17 classifier=false perattempt=- ctx=true body=false ops=1`
	return err
}

// A struct field set in a constructor, retries off at construction.
type LLM struct {
	client openai.Client
}

func NewLLM() *LLM {
	return &LLM{client: openai.NewClient(option.WithMaxRetries(0), option.WithRequestTimeout(30*time.Second))}
}

func (l *LLM) Complete(ctx context.Context) error {
	_, err := l.client.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=1 waits=- .*assumed=false client=openai/openai.go:28 .*perattempt=30s`
	return err
}

// Per-call options win over the client's.
func (l *LLM) Retrying(ctx context.Context) error {
	_, err := l.client.Chat.Completions.New(ctx, params, option.WithMaxRetries(4)) // want `^openai Chat\.Completions\.New kind=sdk attempts=5 waits=500ms,1s,2s,4s .*assumed=false`
	return err
}

// A client handed in: the default is assumed.
func given(ctx context.Context, c *openai.Client) error {
	_, err := c.Embeddings.New(ctx, openai.EmbeddingNewParams{}) // want `^openai Embeddings\.New kind=sdk attempts=3 .*assumed=true client=-`
	return err
}

// A package-level client; options in a local slice.
var opts = []option.RequestOption{option.WithAPIKey("k"), option.WithMaxRetries(1)}

var global = openai.NewClient(opts...)

func pkgLevel(ctx context.Context) error {
	_, err := global.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=2 waits=500ms .*assumed=false client=openai/openai.go:51`
	return err
}

// A service held in a variable.
func service(ctx context.Context) error {
	client := openai.NewClient()
	svc := client.Chat.Completions
	_, err := svc.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=3 .*assumed=false client=openai/openai.go:60`
	return err
}

// Options from a caller: assumed.
func opaque(ctx context.Context, o ...option.RequestOption) error {
	client := openai.NewClient(o...)
	_, err := client.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=3 .*assumed=true client=openai/openai.go:68`
	return err
}

// The HTTP client retries too.
func transport(ctx context.Context) error {
	rc := retryablehttp.NewClient()
	client := openai.NewClient(option.WithHTTPClient(rc.StandardClient()))
	_, err := client.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=3 .*client=openai/openai.go:76 .*notes=HTTP client is a retryablehttp StandardClient \(built at openai/openai.go:76\): the transport retries too, 5 attempts per SDK attempt`
	return err
}

// Streaming is a request too.
func stream(ctx context.Context, client openai.Client) {
	s := client.Chat.Completions.NewStreaming(ctx, params) // want `^openai Chat\.Completions\.NewStreaming kind=sdk attempts=3 .*assumed=true`
	defer s.Close()
}

// Not layers: building clients and options.
func notLayers() openai.Client {
	_ = option.WithMaxRetries(3)
	return openai.NewClient()
}

// A constructor function of the package is followed to its return.
func newClient() openai.Client {
	return openai.NewClient(option.WithMaxRetries(0))
}

type Bot struct{ c openai.Client }

func NewBot() (*Bot, error) {
	c := newClient()
	return &Bot{c: c}, nil
}

func (b *Bot) Say(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err := b.c.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=1 .*elapsed=20s assumed=false client=openai/openai.go:95 .*notes=bounded by the timeout of its context`
	return err
}

// Options partly from a caller: the visible WithMaxRetries(0) is taken.
func partly(ctx context.Context, extra []option.RequestOption) error {
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	opts = append(opts, extra...)
	client := openai.NewClient(opts...)
	_, err := client.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=1 .*assumed=false`
	return err
}

// A conditional WithMaxRetries(0) may not run: the default is assumed.
func conditional(ctx context.Context, off bool) error {
	var opts []option.RequestOption
	if off {
		opts = append(opts, option.WithMaxRetries(0))
	}
	client := openai.NewClient(opts...)
	_, err := client.Chat.Completions.New(ctx, params) // want `^openai Chat\.Completions\.New kind=sdk attempts=3 .*assumed=true`
	return err
}
