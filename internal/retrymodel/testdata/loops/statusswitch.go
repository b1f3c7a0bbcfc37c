package loops

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// A retry written as a switch on the status: the cases that fall out of
// it (429, 503) go on to the wait and the next attempt, as the same
// decision written with ifs would.
func switchRetry(ctx context.Context, c *http.Client, url string) error {
	for i := 0; i < 4; i++ { // want `retry loop: attempts=4 waits=1s,1s,1s jitter=no`
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return nil
		case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		default:
			return errors.New(resp.Status)
		}
		time.Sleep(time.Second)
	}
	return errors.New("exhausted")
}

// Lookalike: a poll of an accepted job; 202 (still running) falls out of
// the switch to the wait, a success that asks again, not a failure.
func switchPoll(ctx context.Context, c *http.Client, url string) error {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return nil
		case http.StatusAccepted:
		default:
			return errors.New(resp.Status)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// Lookalike: a resolve loop that goes round after a 401 with a new token
// and after a redirect to the same host; every other answer leaves. No
// transient failure is sent again.
func switchResolve(ctx context.Context, c *http.Client, url string, token func(context.Context) (string, error)) (string, error) {
	auth := ""
	for range 10 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Authorization", auth)
		resp, err := c.Do(req)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return url, nil
		case http.StatusUnauthorized:
			if auth, err = token(ctx); err != nil {
				return "", err
			}
		case http.StatusFound, http.StatusTemporaryRedirect:
			url = resp.Header.Get("Location")
		default:
			return "", errors.New(resp.Status)
		}
	}
	return "", errors.New("too many redirects")
}

// The retried statuses fall out of the switch to the wait at the end of
// the turn; default returns every other status, a 200 among them.
func callAPI(ctx context.Context, c *http.Client, req *http.Request, wait time.Duration) (*http.Response, error) {
	tries := 0
	for { // want `retry loop: attempts=4`
		tries++
		resp, err := c.Do(req.Clone(ctx))
		if err != nil {
			return nil, err
		}
		switch resp.StatusCode {
		case http.StatusServiceUnavailable, http.StatusBadGateway:
			resp.Body.Close()
		case http.StatusTooManyRequests:
			resp.Body.Close()
		default:
			return resp, nil
		}
		if tries >= 4 {
			return nil, errors.New("gave up")
		}
		time.Sleep(wait)
	}
}

// pageWalk: a 200 falls out of the switch to fetch the next page, default
// returns: a walk over pages, not a retry.
func pageWalk(ctx context.Context, c *http.Client, urls []string) error {
	i := 0
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, urls[i], nil)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		switch resp.StatusCode {
		case http.StatusOK:
			resp.Body.Close()
		default:
			resp.Body.Close()
			return errors.New(resp.Status)
		}
		i++
		if i == len(urls) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}
