package shapes

import (
	"errors"
	"net/http"
	"time"
)

// An operation that decides the retry and waits itself, and hands the
// decision back as a bool (newrelic-client-go's Do / innerDo).

type flagClient struct {
	hc  *http.Client
	max int
}

var errGiveUp = errors.New("giving up")

// attemptOnce makes one request; on a 503 it waits and says "again".
func (c *flagClient) attemptOnce(url string, i int) (*http.Response, bool, error) {
	resp, err := c.hc.Get(url)
	if err != nil {
		return nil, false, err
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		return resp, false, nil
	}
	if c.max-i <= 0 {
		return resp, false, errGiveUp
	}
	time.Sleep(time.Second)
	return resp, true, nil
}

// flagRetry goes round while the operation says so: a retry whose wait and
// bound are the operation's.
func (c *flagClient) flagRetry(url string) (*http.Response, error) {
	for i := 0; ; i++ { // want `retry loop: attempts=\? waits=1s,1s,1s,1s,1s,1s,1s,1s jitter=no deadline=no cancellable=no retryafter=no classifier`
		resp, again, err := c.attemptOnce(url, i)
		if again {
			continue
		}
		if err != nil {
			return nil, err
		}
		return resp, nil
	}
}

// readyOnce reports whether a job is done: its bool is a state, computed,
// not a flag set after a wait.
func (c *flagClient) readyOnce(url string) (bool, error) {
	resp, err := c.hc.Get(url)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

// pollReady polls until the job is done: not a retry.
func (c *flagClient) pollReady(url string) error {
	for {
		done, err := c.readyOnce(url)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		time.Sleep(time.Second)
	}
}

// foundOnce says true without waiting: a found flag, not a retry flag.
func (c *flagClient) foundOnce(url string) (bool, error) {
	resp, err := c.hc.Get(url)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return false, nil
	}
	return true, nil
}

// nextPage walks pages while the operation finds one: not a retry.
func (c *flagClient) nextPage(urls []string) int {
	n := 0
	for i := 0; ; i++ {
		found, err := c.foundOnce(urls[i%len(urls)])
		if found {
			n++
			continue
		}
		if err != nil {
			return n
		}
		return n
	}
}
