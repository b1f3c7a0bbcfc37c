// Package store: a retry whose wait is a package variable. Its internal
// test assigns the variable too; the test variant, the view go vet
// reports, must still judge the wait at its production value (2s): a
// test's assignment changes no verdict on production code.
package store

import (
	"context"
	"net/http"
	"time"
)

var retryWait = 2 * time.Second

// Fetch retries 4 times, sleeping retryWait between attempts whatever
// ctx says.
func Fetch(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	for i := 0; i < 4; i++ {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			return resp, nil
		}
		time.Sleep(retryWait)
	}
	return nil, err
}
