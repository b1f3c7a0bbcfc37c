package shapes

import (
	"context"
	"log"
	"math/rand/v2"
	"net/http"
	"time"
)

// The minio-go shape: a method yields attempts from a goroutine that
// waits a jittered exponential delay it computes in a closure, and the
// loop leaves on success through a range over the success codes.

type s3client struct{ hc *http.Client }

func (c *s3client) newRetryTimer(ctx context.Context, maxRetry int, base, max time.Duration) <-chan int {
	ch := make(chan int)
	wait := func(attempt int) time.Duration {
		d := base * time.Duration(1<<uint(attempt))
		if d > max {
			d = max
		}
		return d - time.Duration(rand.Float64()*float64(d))
	}
	go func() {
		defer close(ch)
		for i := 0; i < maxRetry; i++ {
			select {
			case ch <- i + 1:
			case <-ctx.Done():
				return
			}
			select {
			case <-time.After(wait(i)):
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

var successStatus = []int{http.StatusOK, http.StatusNoContent, http.StatusPartialContent}

var retryableCodes = map[int]struct{}{429: {}, 500: {}, 502: {}, 503: {}, 504: {}}

func (c *s3client) execute(ctx context.Context, req *http.Request) (*http.Response, error) {
	var res *http.Response
	var err error
	for range c.newRetryTimer(ctx, 10, 200*time.Millisecond, time.Second) { // want `retry loop \(yielded attempts\): attempts=\? `
		res, err = c.hc.Do(req)
		if err != nil {
			continue
		}
		for _, ok := range successStatus {
			if ok == res.StatusCode {
				return res, nil
			}
		}
		res.Body.Close()
		if _, ok := retryableCodes[res.StatusCode]; ok {
			continue
		}
		break
	}
	return res, err
}

// A range over codes that only logs decides nothing: the loop goes round
// again after a success, so it is a watcher, not a retry.
func (c *s3client) watch(ctx context.Context, req *http.Request) error {
	watched := []int{http.StatusOK, http.StatusNotModified}
	for range c.newRetryTimer(ctx, 10, time.Second, time.Minute) {
		res, err := c.hc.Do(req)
		if err != nil {
			return err
		}
		for _, w := range watched {
			if w == res.StatusCode {
				log.Printf("status %d", w)
			}
		}
		res.Body.Close()
	}
	return nil
}
