package shapes

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Each call keeps its error in a variable of its own: the guard on
// building the request returns, and the status test belongs to the
// response of the send. Only the send's failure goes round again.
func sendOwnErrVars(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=1s,1s jitter=no deadline=yes cancellable=yes retryafter=no`
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := hc.Do(req)
		if derr == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		} else {
			err = derr
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}

// The same split, the send's error tested first.
func sendOwnErrVarsFailFirst(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=2s,2s jitter=no deadline=yes cancellable=yes retryafter=no`
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, serr := hc.Do(req)
		if serr != nil {
			err = serr
		} else {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return err
}

// Quiet: a poll with the same split. The send's error and a failing
// status return; a job that is not done yet waits and asks again.
func pollOwnErrVars(ctx context.Context, hc *http.Client, url string) error {
	for {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := hc.Do(req)
		if derr != nil {
			return derr
		}
		var job struct{ State string }
		jerr := json.NewDecoder(resp.Body).Decode(&job)
		resp.Body.Close()
		if jerr != nil {
			return jerr
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		if job.State == "done" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
		}
	}
}
