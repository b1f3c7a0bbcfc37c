// Package conflict holds conflict retries: a read-modify-write that runs
// again after losing an optimistic-concurrency race (409 Conflict) is no
// retry layer for nesting; a retry of every error, of 5xx, or of 409 and
// 503 is.
package conflict

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
)

type node struct {
	name   string
	labels map[string]string
}

// api is a remote object store with optimistic concurrency.
type api struct{ base string }

func (a *api) get(ctx context.Context, name string) (*node, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/nodes/"+name, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return &node{name: name}, nil
}

// put writes n; it fails with a Kubernetes Conflict on 409.
func (a *api) put(ctx context.Context, n *node) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, a.base+"/nodes/"+n.name, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusConflict:
		return resp.StatusCode, apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, n.name, errors.New("modified"))
	case resp.StatusCode >= 300:
		return resp.StatusCode, fmt.Errorf("put %s: %s", n.name, resp.Status)
	}
	return resp.StatusCode, nil
}

// labelNode retries only a conflict, read by the StatusError's reason
// (every other failure is Permanent): a conflict retry.
func (a *api) labelNode(ctx context.Context, name, k, v string) error {
	op := func() error {
		n, err := a.get(ctx, name)
		if err != nil {
			return backoff.Permanent(err)
		}
		n.labels = map[string]string{k: v}
		if _, err := a.put(ctx, n); err != nil {
			serr, ok := err.(*apierrors.StatusError)
			if ok && serr.Status().Reason == metav1.StatusReasonConflict {
				return err
			}
			return backoff.Permanent(err)
		}
		return nil
	}
	return backoff.Retry(op, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 50))
}

// Rollback: a transient-error retry around the conflict retry: quiet.
func (a *api) Rollback(ctx context.Context, name string) error {
	return backoff.Retry(func() error {
		return a.labelNode(ctx, name, "state", "rolled-back")
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 10))
}

// annotate stops on every failure but a conflict first (apierrors.IsConflict).
func (a *api) annotate(ctx context.Context, name string) error {
	return backoff.Retry(func() error {
		n, err := a.get(ctx, name)
		if err != nil {
			return backoff.Permanent(err)
		}
		_, err = a.put(ctx, n)
		if err != nil && !apierrors.IsConflict(err) {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 5))
}

// Annotate: quiet, as Rollback.
func (a *api) Annotate(ctx context.Context, name string) error {
	return backoff.Retry(func() error {
		return a.annotate(ctx, name)
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
}

// isConflict is a predicate of this package over the library's.
func isConflict(err error) bool { return apierrors.IsConflict(err) }

// OnConflict: retry.OnError with a conflict predicate, and RetryOnConflict,
// around a transient-error retry: the outer layers retry only conflicts;
// quiet.
func (a *api) OnConflict(ctx context.Context, name string) error {
	if err := retry.OnError(retry.DefaultRetry, isConflict, func() error {
		return a.Annotate(ctx, name)
	}); err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		return a.Annotate(ctx, name)
	})
}

// putAny retries every error: a retry layer.
func (a *api) putAny(ctx context.Context, n *node) error {
	return backoff.Retry(func() error {
		_, err := a.put(ctx, n)
		return err
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 4))
}

// PutAny: a retry around a retry of every error.
func (a *api) PutAny(ctx context.Context, n *node) error {
	return backoff.Retry(func() error { // want `backoff.Retry \(4 attempts\) at conflict/conflict.go:139 wraps backoff.Retry \(5 attempts\) at conflict/conflict.go:131 \(through conflict.\(\*api\).putAny\): up to 20 requests per call`
		return a.putAny(ctx, n)
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
}

// put5xx retries server errors and stops on the rest.
func (a *api) put5xx(ctx context.Context, n *node) error {
	return backoff.Retry(func() error {
		status, err := a.put(ctx, n)
		if err != nil && status >= 500 {
			return err
		}
		return backoff.Permanent(err)
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 4))
}

// Put5xx: a retry around a retry of 5xx.
func (a *api) Put5xx(ctx context.Context, n *node) error {
	return backoff.Retry(func() error { // want `backoff.Retry \(4 attempts\) at conflict/conflict.go:157 wraps backoff.Retry \(5 attempts\) at conflict/conflict.go:146 \(through conflict.\(\*api\).put5xx\): up to 20 requests per call`
		return a.put5xx(ctx, n)
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
}

// putLoop retries 409 and 503: a retry of a failing server too.
func (a *api) putLoop(ctx context.Context, n *node) error {
	var err error
	for i := 0; i < 3; i++ {
		var status int
		status, err = a.put(ctx, n)
		if err == nil {
			return nil
		}
		if status != http.StatusConflict && status != http.StatusServiceUnavailable {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

// PutLoop: a retry around it.
func (a *api) PutLoop(ctx context.Context, n *node) error {
	return backoff.Retry(func() error { // want `backoff.Retry \(4 attempts\) at conflict/conflict.go:181 wraps retry loop \(3 attempts\) at conflict/conflict.go:165 \(through conflict.\(\*api\).putLoop\): up to 12 requests per call`
		return a.putLoop(ctx, n)
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
}

// casLoop retries 409 only: a conflict retry.
func (a *api) casLoop(ctx context.Context, name string) error {
	var err error
	for i := 0; i < 3; i++ {
		var n *node
		if n, err = a.get(ctx, name); err != nil {
			return err
		}
		var status int
		status, err = a.put(ctx, n)
		if err == nil {
			return nil
		}
		if status != http.StatusConflict {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

// CasLoop: quiet.
func (a *api) CasLoop(ctx context.Context, name string) error {
	return backoff.Retry(func() error {
		return a.casLoop(ctx, name)
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
}
