package fallback

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"
)

// The context rides in the request: http.Client.Do is handed no ctx
// argument, only a request built on the one deadline.
func getAny(ctx context.Context, hc *http.Client, mirrors []string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second) // want `fallback loop over mirrors at fallback/request.go:\d+ tries each on the one deadline of 10s set here`
	defer cancel()
	var last error
	for _, m := range mirrors {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+m+"/index.json", nil)
		if err != nil {
			return nil, err
		}
		resp, err := hc.Do(req)
		if err == nil {
			return resp, nil
		}
		last = err
	}
	return nil, last
}

// Quiet: each mirror's request is built on a timeout of its own.
func getEach(ctx context.Context, hc *http.Client, mirrors []string) (*http.Response, error) {
	for _, m := range mirrors {
		mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		req, err := http.NewRequestWithContext(mctx, http.MethodGet, "https://"+m+"/index.json", nil)
		if err != nil {
			cancel()
			return nil, err
		}
		resp, err := hc.Do(req)
		if err == nil {
			return resp, nil // the body outlives cancel in real code; the shape is what matters here
		}
		cancel()
	}
	return nil, errors.New("no mirror")
}

// Quiet: the requests are built on the caller's context; the deadline
// bounds only the probe before the loop.
func getParent(parent context.Context, hc *http.Client, mirrors []string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(parent, time.Second)
	defer cancel()
	probe, err := http.NewRequestWithContext(ctx, http.MethodHead, "https://probe.example.com/", nil)
	if err != nil {
		return nil, err
	}
	if _, err := hc.Do(probe); err != nil {
		return nil, err
	}
	for _, m := range mirrors {
		req, err := http.NewRequestWithContext(parent, http.MethodGet, "https://"+m+"/index.json", nil)
		if err != nil {
			return nil, err
		}
		if resp, err := hc.Do(req); err == nil {
			return resp, nil
		}
	}
	return nil, errors.New("no mirror")
}

// deliver records a failed delivery on the context whose deadline the
// request just ran out of: the request carries it, so hc.Do failed on it.
func deliver(parent context.Context, db *sql.DB, hc *http.Client, id int64, url string) error { // want deliver:"write with ctx param 0 via db.ExecContext at fallback/request.go:84"
	ctx, cancel := context.WithTimeout(parent, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		db.ExecContext(ctx, "UPDATE deliveries SET state = 'failed' WHERE id = $1", id) // want `write uses ctx after hc.Do failed on it: when that call ran out of the deadline of 5s set at fallback/request.go:\d+`
		return err
	}
	resp.Body.Close()
	_, err = db.ExecContext(ctx, "UPDATE deliveries SET state = 'done' WHERE id = $1", id)
	return err
}

// Quiet: the failure is recorded on a context of its own.
func deliverDetached(parent context.Context, db *sql.DB, hc *http.Client, id int64, url string) error {
	ctx, cancel := context.WithTimeout(parent, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer wcancel()
		db.ExecContext(wctx, "UPDATE deliveries SET state = 'failed' WHERE id = $1", id)
		return err
	}
	return resp.Body.Close()
}

// Quiet: the request is built on the caller's context, not on the deadline.
func deliverParent(parent context.Context, db *sql.DB, hc *http.Client, id int64, url string) error { // want deliverParent:"write with ctx param 0 via db.ExecContext at fallback/request.go:120"
	ctx, cancel := context.WithTimeout(parent, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(parent, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		db.ExecContext(ctx, "UPDATE deliveries SET state = 'failed' WHERE id = $1", id)
		return err
	}
	return resp.Body.Close()
}
