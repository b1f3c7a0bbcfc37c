package stops

import (
	"context"
	"net/http"
	"testing"

	"github.com/hashicorp/go-retryablehttp"
)

// A test's client that gives up at once tests the failure path: quiet
// (retryablehttp's own client_test.go does this).
func TestNoRetry(t *testing.T) {
	c := retryablehttp.NewClient()
	c.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		return false, nil
	}
	if _, err := c.Get("http://127.0.0.1:1/"); err == nil {
		t.Fatal("want an error")
	}
}
