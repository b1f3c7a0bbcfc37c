// Package search is a second pipeline: a retry without a deadline guard,
// so what it needs is attempt + wait + attempt.
package search

import (
	"context"
	"net/http"
	"time"
)

// Index queries the search service.
type Index struct {
	HTTP *http.Client
	URL  string
}

//retryvet:p99 5s
func (x *Index) get(ctx context.Context) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, x.URL, nil)
	if err != nil {
		return nil, err
	}
	return x.HTTP.Do(req)
}

// Query retries twice, 2s apart.
func (x *Index) Query(ctx context.Context) error { // want Query:`needs 12s on param 1 for search.\(\*Index\).Query \(p99 5s\)`
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var resp *http.Response
		resp, err = x.get(ctx)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return err
}

// Refresh retries a reload; it takes no context, so no caller's deadline
// reaches it.
func (x *Index) Refresh() error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var resp *http.Response
		resp, err = x.HTTP.Get(x.URL + "/refresh")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
