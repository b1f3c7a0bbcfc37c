// Package testvar holds retries whose waits come from package variables
// that the tests shorten. The verdict is on the production values: under
// the one-second floor they are quiet; above it, reported with the
// production waits.
package testvar

import (
	"errors"
	"net/http"
	"time"
)

var (
	retryDelay = 100 * time.Millisecond
	slowDelay  = time.Second
)

var errGaveUp = errors.New("gave up")

// 100ms, 200ms, 400ms: 700ms in all, under the floor. Quiet.
func Fetch(c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := c.Get(url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(retryDelay << i)
	}
	return nil, errGaveUp
}

// 100ms three times: 300ms. Quiet.
func FetchFlat(c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, err := c.Get(url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(retryDelay)
	}
	return nil, errGaveUp
}

// 1s, 2s, 3s in production, whatever the tests set.
func FetchSlow(c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 4; i++ { // want `attempt-only retry: retry loop makes 4 attempts with waits 1s, 2s, 3s and nothing bounds it in time: worst case 6s`
		resp, err := c.Get(url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(slowDelay * time.Duration(i+1)) // want `no jitter: retry loop waits 1s, 2s, 3s with no random part`
	}
	return nil, errGaveUp
}
