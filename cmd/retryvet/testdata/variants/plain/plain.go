// Package plain has no tests: go vet analyses the package itself.
package plain

import (
	"net/http"
	"time"
)

// Get retries 3 times with a fixed 1s wait.
func Get(url string) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ {
		var resp *http.Response
		if resp, err = http.Get(url); err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
