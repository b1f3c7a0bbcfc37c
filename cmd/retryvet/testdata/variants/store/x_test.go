package store_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"example.com/variants/store"
)

// poll is a test helper with a retry of its own whose classifier lists
// two 5xx codes: reported once, from the external test package.
func poll(ctx context.Context, url string) error {
	for i := 0; i < 3; i++ {
		resp, err := store.Fetch(ctx, url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable {
			time.Sleep(time.Second)
			continue
		}
		return nil
	}
	return http.ErrServerClosed
}

func TestPoll(t *testing.T) {
	if err := poll(context.Background(), "http://127.0.0.1:1/"); err == nil {
		t.Fatal("want an error")
	}
}
