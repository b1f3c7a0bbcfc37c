// Package double: a retry loop around a client that already retries
// (doubleretry).
package double

import (
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Fetch makes up to 3 x 5 attempts: the loop retries a retryablehttp
// client that retries 4 times itself.
func Fetch(url string) (*http.Response, error) {
	client := retryablehttp.NewClient()
	client.RetryMax = 4
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := client.Get(url)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, lastErr
}
