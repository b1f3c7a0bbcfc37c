// Package retryablehttp exercises github.com/hashicorp/go-retryablehttp.
package retryablehttp

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Defaults: RetryMax 4, 1s*2^i capped at 30s, Retry-After honoured.
func defaults(ctx context.Context) (*http.Response, error) {
	c := retryablehttp.NewClient()
	req, err := retryablehttp.NewRequestWithContext(ctx, "GET", "http://x", nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req) // want `^retryablehttp\.Client\.Do kind=client attempts=5 waits=1s,2s,4s,8s jitter=no deadline=yes cancel=yes retryafter=yes elapsed=- assumed=false client=retryablehttp/retryablehttp.go:14 classifier=false .*ctx=true`
}

// Field assignments and a custom classifier.
type api struct{ rc *retryablehttp.Client }

func newAPI() *api {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 2
	rc.RetryWaitMin = 500 * time.Millisecond
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) { return err != nil, nil }
	return &api{rc: rc}
}

func (a *api) get(url string) (*http.Response, error) {
	return a.rc.Get(url) // want `^retryablehttp\.Client\.Get kind=client attempts=3 waits=500ms,1s jitter=no deadline=no cancel=no retryafter=yes .*assumed=false client=retryablehttp/retryablehttp.go:26 classifier=true`
}

// Retries off.
func noRetry() (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.RetryMax = 0
	return c.Post("http://x", "text/plain", nil) // want `^retryablehttp\.Client\.Post kind=client attempts=1 waits=-`
}

// Linear jitter: Retry-After ignored.
func linear() (*http.Response, error) {
	c := &retryablehttp.Client{RetryMax: 3, RetryWaitMin: time.Second, RetryWaitMax: 2 * time.Second, Backoff: retryablehttp.LinearJitterBackoff, CheckRetry: retryablehttp.DefaultRetryPolicy}
	return c.Head("http://x") // want `^retryablehttp\.Client\.Head kind=client attempts=4 waits=1s,2s,3s jitter=yes deadline=no cancel=no retryafter=no`
}

// A client from outside: defaults assumed.
func given(c *retryablehttp.Client, req *retryablehttp.Request) (*http.Response, error) {
	return c.Do(req) // want `^retryablehttp\.Client\.Do kind=client attempts=5 .*deadline=unknown .*assumed=true client=-`
}

// The package functions use a default client.
func pkgGet() (*http.Response, error) {
	return retryablehttp.Get("http://x") // want `^retryablehttp\.Get kind=client attempts=5 waits=1s,2s,4s,8s .*deadline=no`
}

// StandardClient: the *http.Client's transport retries.
type svc struct{ hc *http.Client }

func newSvc() *svc {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 3
	return &svc{hc: rc.StandardClient()}
}

func (s *svc) call(ctx context.Context) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	return s.hc.Do(req) // want `^http\.Client\.Do \(retryablehttp StandardClient\) kind=client attempts=4 waits=1s,2s,4s .*deadline=yes .*client=retryablehttp/retryablehttp.go:66`
}

// Not layers: a plain *http.Client, building requests and clients.
func plain(ctx context.Context) (*http.Response, error) {
	_, _ = retryablehttp.NewRequest("GET", "http://x", nil)
	_ = retryablehttp.NewClient()
	hc := &http.Client{Timeout: time.Second}
	return hc.Get("http://x")
}

// A client copied into two request literals; a custom backoff that reads
// Retry-After.
type client struct{ http *retryablehttp.Client }

type request struct{ http *retryablehttp.Client }

func newClient() *client {
	c := &client{}
	c.http = &retryablehttp.Client{RetryMax: 2, Backoff: c.backoff, CheckRetry: retryablehttp.DefaultRetryPolicy}
	return c
}

func (c *client) backoff(min, max time.Duration, n int, resp *http.Response) time.Duration {
	if resp != nil && resp.Header.Get("Retry-After") != "" {
		return time.Second
	}
	return min
}

func (c *client) get() *request  { return &request{http: c.http} }
func (c *client) post() *request { return &request{http: c.http} }

func (r *request) do(req *retryablehttp.Request) (*http.Response, error) {
	return r.http.Do(req) // want `^retryablehttp\.Client\.Do kind=client attempts=3 waits=- jitter=unknown deadline=unknown cancel=unknown retryafter=yes .*assumed=false client=retryablehttp/retryablehttp.go:90`
}

// A client handed to a function that configures it: its settings are unknown.
func configure(c *retryablehttp.Client) { c.RetryMax = 10 }

func escaped() (*http.Response, error) {
	c := retryablehttp.NewClient()
	configure(c)
	return c.Get("http://x") // want `^retryablehttp\.Client\.Get kind=client attempts=\? waits=- .*assumed=false`
}

// The HTTP client's Timeout bounds each attempt.
func timeouts() (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.HTTPClient.Timeout = 10 * time.Second
	d := &retryablehttp.Client{RetryMax: 1, HTTPClient: &http.Client{Timeout: 5 * time.Second}}
	if _, err := d.Get("http://x"); err != nil { // want `^retryablehttp\.Client\.Get kind=client attempts=2 .*perattempt=5s`
		return nil, err
	}
	return c.Get("http://x") // want `^retryablehttp\.Client\.Get kind=client attempts=5 .*perattempt=10s`
}

// A constructor of the package that only stores the client does not
// configure it.
type holder struct{ c *retryablehttp.Client }

func newHolder(c *retryablehttp.Client) *holder { return &holder{c: c} }

func stored() (*http.Response, error) {
	c := retryablehttp.NewClient()
	c.RetryMax = 1
	_ = newHolder(c)
	return c.Get("http://x") // want `^retryablehttp\.Client\.Get kind=client attempts=2 waits=1s `
}
