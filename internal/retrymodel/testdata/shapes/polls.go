package shapes

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Polls: cycles that go round again until a state is reached, not after a
// failed request. None of them is a retry.

// waitForCallback checks a local file every 500ms for the OAuth callback.
func waitForCallback(ctx context.Context, path string) (string, error) {
	for {
		b, err := os.ReadFile(path)
		if err == nil && len(b) > 0 {
			return string(b), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

type token struct {
	AccessToken string `json:"access_token"`
}

// pollDeviceToken is the OAuth device flow: 403 and 404 mean the user has
// not approved yet, so the loop asks again at the server's interval.
func pollDeviceToken(ctx context.Context, endpoint, code string, interval time.Duration) (*token, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
		form := url.Values{"device_code": {code}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound {
			resp.Body.Close()
			continue // authorization pending
		}
		var t token
		err = json.NewDecoder(resp.Body).Decode(&t)
		resp.Body.Close()
		return &t, err
	}
}

// startDaemon starts a daemon on localhost and waits until it answers.
func startDaemon(ctx context.Context) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, "daemon", "--listen", "127.0.0.1:7070")
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for i := 0; i < 50; i++ {
		resp, err := http.Get("http://127.0.0.1:7070/healthz")
		if err == nil {
			resp.Body.Close()
			return cmd, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil, errors.New("daemon did not start")
}

type store struct{ db *sql.DB }

// newStore waits for the database at start-up.
func newStore(dsn string) (*store, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < 30; attempt++ {
		if err = db.Ping(); err == nil {
			return &store{db: db}, nil
		}
		time.Sleep(time.Second)
	}
	return nil, fmt.Errorf("database not ready: %w", err)
}

// harness is a test harness that starts a proxy on localhost.
type harness struct {
	addr string
	cmd  *exec.Cmd
}

func (h *harness) start() error {
	h.addr = "localhost:18080"
	h.cmd = exec.Command("proxy", "-addr", h.addr)
	if err := h.cmd.Start(); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + h.addr + "/ready")
		if err == nil && resp.StatusCode == http.StatusOK {
			resp.Body.Close()
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return errors.New("proxy not ready")
}
