// Package flag retries in a loop whose operation decides the retry and
// waits itself, handing the decision back as a bool (newrelic-client-go's
// Do / innerDo), over a retryablehttp client.
package flag

import (
	"errors"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

var errGiveUp = errors.New("giving up")

type client struct {
	rc  *retryablehttp.Client
	max int
}

func newClient() *client {
	return &client{rc: retryablehttp.NewClient(), max: 3}
}

// attempt makes one request through the retrying client; on a 409 it waits
// and says "again".
func (c *client) attempt(url string, i int) (*http.Response, bool, error) {
	resp, err := c.rc.Get(url)
	if err != nil {
		return nil, false, err
	}
	if resp.StatusCode != http.StatusConflict {
		return resp, false, nil
	}
	if c.max-i <= 0 {
		return resp, false, errGiveUp
	}
	time.Sleep(time.Second)
	return resp, true, nil
}

// Do goes round while attempt says so, over a client that retries itself.
func (c *client) Do(url string) (*http.Response, error) {
	for i := 0; ; i++ { // want `retry loop at flag/flag.go:44 wraps retryablehttp.Client.Get at flag/flag.go:28 \(through flag.\(\*client\).attempt\), which retries 4 more times by default \(client built at flag/flag.go:22\): up to 5 requests per attempt of this layer, whose attempts are not known; pick one layer: RetryMax = 0 on the retryablehttp client, or drop this loop`
		resp, again, err := c.attempt(url, i)
		if again {
			continue
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
}

type quietClient struct{ rc *retryablehttp.Client }

func newQuiet() *quietClient {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 0
	return &quietClient{rc: rc}
}

func (c *quietClient) attempt(req *retryablehttp.Request) (*http.Response, bool, error) {
	resp, err := c.rc.Do(req)
	if err != nil {
		return nil, false, err
	}
	if resp.StatusCode != http.StatusConflict {
		return resp, false, nil
	}
	time.Sleep(time.Second)
	return resp, true, nil
}

// Do: the client's retries are off, one layer: quiet.
func (c *quietClient) Do(req *retryablehttp.Request) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		resp, again, err := c.attempt(req)
		if again {
			continue
		}
		return resp, err
	}
	return nil, errGiveUp
}
