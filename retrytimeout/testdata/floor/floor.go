// Package floor: an attempt-only retry whose waits total at most 1s is
// bound enough by its attempt count; above that it is reported.
package floor

import (
	"net/http"
	"time"
)

type API struct{ retryBackoff time.Duration }

func NewAPI() *API { return &API{retryBackoff: 100 * time.Millisecond} }

// withRetry waits 100ms, 200ms, 300ms, 400ms: 1s in all, quiet.
func (a *API) withRetry(f func() (*http.Response, error)) (resp *http.Response, err error) {
	for i := 0; i < 5; i++ {
		resp, err = f()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 500 {
			break
		}
		time.Sleep(a.retryBackoff * (time.Duration(i) + 1))
	}
	return resp, err
}

// slowRetry waits 500ms three times: 1.5s in all.
func slowRetry(f func() (*http.Response, error)) (resp *http.Response, err error) {
	for i := 0; i < 4; i++ { // want `attempt-only retry: retry loop makes 4 attempts with waits 500ms, 500ms, 500ms and nothing bounds it in time: worst case 1.5s of waiting`
		resp, err = f()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < 500 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	return resp, err
}
