package llm

import (
	"context"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// AskOpts builds its client from options appended on a condition: the
// options cannot be read, so the SDK default is assumed and said so.
func AskOpts(ctx context.Context, key, base, q string) (string, error) {
	opts := []option.RequestOption{option.WithAPIKey(key)}
	if base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	client := openai.NewClient(opts...)
	var err error
	for attempt := 0; attempt < 2; attempt++ { // want `retry loop \(2 attempts\) at llm/opts.go:20 wraps openai Chat.Completions.New at llm/opts.go:21, which retries 2 more times \(SDK default \(2 retries\), assumed: the configuration of the client built at llm/opts.go:18 cannot be read\): up to 6 requests per call`
		resp, e := client.Chat.Completions.New(ctx, params(q))
		if e == nil {
			return text(resp), nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return "", err
}
