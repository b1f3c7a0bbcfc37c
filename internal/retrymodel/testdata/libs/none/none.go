// Package none holds lookalikes that are not call layers.
package none

import (
	"context"
	"net/http"
	"time"

	"example.com/rm/libs/none/backoff"
	cbackoff "github.com/cenkalti/backoff/v4"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func lookalike() error {
	return backoff.Retry(func() error { return nil }, backoff.Constant{D: time.Second})
}

// Building policies, clients, requests and options runs nothing.
func builders() {
	b := cbackoff.NewExponentialBackOff()
	_ = cbackoff.WithMaxRetries(b, 3)
	_ = b.NextBackOff()
	_, _ = retryablehttp.NewRequest("GET", "http://x", nil)
	rc := retryablehttp.NewClient()
	_ = rc.StandardClient()
	_ = openai.NewClient(option.WithMaxRetries(0))
	_ = openai.UserMessage("hi")
}

// A plain *http.Client in a package that imports retryablehttp.
func plain(ctx context.Context) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	return http.DefaultClient.Do(req)
}
