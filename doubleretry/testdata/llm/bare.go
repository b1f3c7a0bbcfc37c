package llm

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
)

// AskBare builds its client with no options and does not import the
// option package: the fix adds the import too.
func AskBare(ctx context.Context, q string) (string, error) {
	client := openai.NewClient()
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop \(3 attempts\) at llm/bare.go:15 wraps openai Chat.Completions.New at llm/bare.go:16, which retries 2 more times by default \(client built at llm/bare.go:13\): up to 9 requests per call`
		resp, e := client.Chat.Completions.New(ctx, params(q))
		if e == nil {
			return text(resp), nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return "", err
}
