// Package hand implements core.Store with a retry loop of its own:
// core's 4 attempts of 3 each are 12 requests.
package hand

import (
	"context"
	"net/http"
	"strings"
	"time"

	"example.com/t/iface/core"
)

var _ core.Store = (*Store)(nil)

type Store struct {
	c    *http.Client
	base string
}

func (s *Store) Put(ctx context.Context, key, val string) error { // want `retry loop \(4 attempts\) at core/core.go:58 retries core.Store.Put, and this implementation of it wraps retry loop \(3 attempts\) at hand/hand.go:\d+ \(through hand.\(\*Store\).put\): up to 12 requests per call`
	return s.put(ctx, key, val)
}

func (s *Store) put(ctx context.Context, key, val string) error {
	var err error
	for i := 0; i < 3; i++ {
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodPut, s.base+"/"+key, strings.NewReader(val))
		if err != nil {
			return err
		}
		var resp *http.Response
		resp, err = s.c.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp.Body.Close()
		}
		if resp != nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * 200 * time.Millisecond):
		}
	}
	return err
}
