// Package timeout: an attempt-only retry with fixed waits, no jitter and a
// wait that ignores cancellation (retrytimeout).
package timeout

import (
	"context"
	"net/http"
	"strings"
	"time"
)

func send(ctx context.Context, msg string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://queue.example/send", strings.NewReader(msg))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Send retries 5 times, sleeping 2s between attempts whatever ctx says.
func Send(ctx context.Context, msg string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = send(ctx, msg); err == nil {
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return err
}
