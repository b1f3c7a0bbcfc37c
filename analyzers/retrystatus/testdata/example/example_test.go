package example

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// ExampleUnavailable is documentation: quiet, even with two codes listed.
func ExampleUnavailable() {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get("https://example.com/")
		if err != nil {
			return
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout {
			time.Sleep(time.Second)
			continue
		}
		fmt.Println(resp.StatusCode)
		return
	}
}

// retryInTest is not an Example function: a retry in a test helper is
// still read.
func retryInTest(t *testing.T, url string) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout { // want `retry decision lists 5xx codes 503, 504`
			time.Sleep(time.Second)
			continue
		}
		return
	}
}

func TestRetry(t *testing.T) { _ = retryInTest }
