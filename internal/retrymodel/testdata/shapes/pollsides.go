package shapes

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The retries beside the polls of polls.go: the same loops, but the
// operation is remote, the request comes before the wait, and what sends
// the loop round is a failed request, not a state not reached yet.

// fetchCallback asks a remote service for the callback every 500ms: a
// failed request is retried (polls.go's waitForCallback reads a local file).
func fetchCallback(ctx context.Context, c *http.Client, u string) (string, error) {
	for attempt := 0; attempt < 10; attempt++ { // want `retry loop: attempts=10 waits=500ms`
		resp, err := c.Get(u)
		if err == nil {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			return string(b), err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return "", errors.New("no callback")
}

// exchangeToken is the device flow's token request retried after a
// failed request, the request first (polls.go's pollDeviceToken waits
// first and treats 403/404 as pending).
func exchangeToken(ctx context.Context, endpoint, code string) (*http.Response, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=1s,2s`
		form := url.Values{"device_code": {code}}
		var req *http.Request
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			return resp, nil
		}
		time.Sleep(time.Second << attempt)
	}
	return nil, err
}

// fetchRemote retries a request to a host the caller names: not this
// machine, not a health endpoint (polls.go's startDaemon and harness.start
// wait for a local process to come up).
func fetchRemote(ctx context.Context, host string) error {
	for i := 0; i < 5; i++ { // want `retry loop: attempts=5 waits=100ms`
		resp, err := http.Get("https://" + host + "/v1/items")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("unreachable")
}

// newMigratedStore retries a statement at start-up: a query that failed,
// not a readiness check (polls.go's newStore pings until the database is
// up).
func newMigratedStore(db *sql.DB) (*store, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=1s,1s`
		if _, err = db.Exec("CREATE TABLE IF NOT EXISTS t (id int)"); err == nil {
			return &store{db: db}, nil
		}
		time.Sleep(time.Second)
	}
	return nil, fmt.Errorf("migrate: %w", err)
}
