// Package kube holds the k8s.io/client-go/util/retry and
// k8s.io/apimachinery wait.ExponentialBackoff cases.
package kube

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
)

var errConflict = errors.New("conflict")

// store is local state: reading or writing it sends nothing anywhere.
type store struct {
	version int
	data    map[string]string
}

func (s *store) update(key, val string) error {
	if s.data == nil {
		s.data = map[string]string{}
	}
	s.data[key] = val
	s.version++
	return nil
}

// pushOnce waits for the remote end with its own exponential backoff (4 steps).
func pushOnce(ctx context.Context, url string) error {
	return wait.ExponentialBackoff(wait.Backoff{Steps: 4, Duration: 100 * time.Millisecond, Factor: 2}, func() (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// Sync: RetryOnConflict around a wait.ExponentialBackoff: the outer layer
// re-runs only after a lost optimistic-concurrency race, no retry layer: quiet.
func Sync(ctx context.Context, url string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		return pushOnce(ctx, url)
	})
}

// Local: RetryOnConflict around an update of local state: quiet.
func Local(s *store) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		return s.update("k", "v")
	})
}

// Ping: wait.ExponentialBackoff (3 steps) around a retryablehttp call with
// RetryMax 2.
func Ping(url string) error {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 2
	return wait.ExponentialBackoff(wait.Backoff{Steps: 3, Duration: time.Second, Factor: 2, Jitter: 0.1}, func() (bool, error) { // want `wait.ExponentialBackoff \(3 attempts\) at kube/kube.go:69 wraps retryablehttp.Client.Get at kube/kube.go:70, which retries 2 more times \(client built at kube/kube.go:67\): up to 9 requests per call`
		resp, err := rc.Get(url)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return true, nil
	})
}

// PingPlain: the same backoff around a plain http.Get: quiet.
func PingPlain(url string) error {
	return wait.ExponentialBackoff(wait.Backoff{Steps: 3, Duration: time.Second, Factor: 2, Jitter: 0.1}, func() (bool, error) {
		resp, err := http.Get(url)
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return true, nil
	})
}

// OnErr: retry.OnError with DefaultBackoff (4 steps) around Ping (3 x 3).
func OnErr(url string) error {
	return retry.OnError(retry.DefaultBackoff, func(err error) bool { return !errors.Is(err, errConflict) }, func() error { // want `retry.OnError \(4 attempts\) at kube/kube.go:93 wraps wait.ExponentialBackoff \(3 attempts\) at kube/kube.go:69 \(through kube.Ping\), which wraps retryablehttp.Client.Get at kube/kube.go:70, which retries 2 more times \(client built at kube/kube.go:67\): up to 36 requests per call`
		return Ping(url)
	})
}
