// Package chain holds a nesting through several layers in one package: it
// is reported once with the whole chain at the outer layer, and the inner
// nesting once at its own outer layer.
package chain

import (
	"context"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

type Agent struct {
	oa openai.Client
}

func NewAgent() *Agent {
	return &Agent{oa: openai.NewClient(option.WithAPIKey("k"))}
}

func params(q string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	}
}

// call: the framework layer, retry.Do with 3 attempts around the SDK.
func (a *Agent) call(ctx context.Context, q string) (string, error) {
	var out string
	err := retry.Do(func() error { // want `retry.Do \(3 attempts\) at chain/chain.go:33 wraps openai Chat.Completions.New at chain/chain.go:34, which retries 2 more times by default \(client built at chain/chain.go:20\): up to 9 requests per call`
		resp, err := a.oa.Chat.Completions.New(ctx, params(q))
		if err != nil {
			return err
		}
		out = resp.Choices[0].Message.Content
		return nil
	}, retry.Attempts(3), retry.Context(ctx))
	return out, err
}

// Tool: the tool wrapper, 3 more attempts around the framework: the
// whole chain is named once here, with its product.
func (a *Agent) Tool(ctx context.Context, q string) (string, error) {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at chain/chain.go:48 wraps retry.Do \(3 attempts\) at chain/chain.go:33 \(through chain.\(\*Agent\).call\), which wraps openai Chat.Completions.New at chain/chain.go:34, which retries 2 more times by default \(client built at chain/chain.go:20\): up to 27 requests per call; pick one layer: option.WithMaxRetries\(0\) on the client, drop the inner retry.Do at chain/chain.go:33, or drop this loop`
		var s string
		if s, err = a.call(ctx, q); err == nil {
			return s, nil
		}
		time.Sleep(3 * time.Second)
	}
	return "", err
}

// Run calls Tool once, without a retry of its own: nothing to report here,
// the nesting was reported at the loop in Tool.
func (a *Agent) Run(ctx context.Context, q string) (string, error) {
	return a.Tool(ctx, q)
}
