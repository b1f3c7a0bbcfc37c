package cases

import (
	"context"
	"net/http"
	"time"

	"example.com/t/llm"
)

// Ping uses a short deadline for a call that is not a pipeline: quiet.
func Ping(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Detached: context.WithoutCancel drops the short deadline above it.
func Detached(c *llm.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Complete(context.WithoutCancel(ctx), "x")
}

// Ignored: a reviewed short deadline, silenced with a reason.
func Ignored(c *llm.Client) {
	//retryvet:ignore deadlinecensus the smoke test only checks that the fallback answers
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c.Complete(ctx, "x")
}

// Enough gives exactly what the retry needs.
func Enough(c *llm.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 72*time.Second)
	defer cancel()
	c.Complete(ctx, "x")
}
