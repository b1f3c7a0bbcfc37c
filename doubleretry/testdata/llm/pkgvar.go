package llm

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// shared is built once with 5 retries of its own.
var shared = openai.NewClient(option.WithAPIKey("k"), option.WithMaxRetries(5))

// Summarize retries 3 times around a client that retries 5 more times.
func Summarize(ctx context.Context, doc string) (string, error) {
	var err error
	for try := 1; try <= 3; try++ { // want `retry loop \(3 attempts\) at llm/pkgvar.go:17 wraps openai Chat.Completions.New at llm/pkgvar.go:18, which retries 5 more times \(client built at llm/pkgvar.go:12\): up to 18 requests per call`
		resp, e := shared.Chat.Completions.New(ctx, params(doc))
		if e == nil {
			return text(resp), nil
		}
		err = e
		time.Sleep(2 * time.Second)
	}
	return "", err
}

// AskWith gets its client from the caller: the model cannot see how it was
// built and assumes the SDK default.
func AskWith(ctx context.Context, client *openai.Client, q string) (string, error) {
	var err error
	for attempt := 0; attempt < 2; attempt++ { // want `retry loop \(2 attempts\) at llm/pkgvar.go:32 wraps openai Chat.Completions.New at llm/pkgvar.go:33, which retries 2 more times \(SDK default \(2 retries\), assumed: client construction not found\): up to 6 requests per call`
		resp, e := client.Chat.Completions.New(ctx, params(q))
		if e == nil {
			return text(resp), nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return "", err
}
