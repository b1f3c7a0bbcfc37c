// Package conflict holds conflict retries for retrytimeout: a constant
// pause before re-reading after a 409 needs no jitter, and an attempt whose
// first call takes the caller's ctx and stops the retry on failure ends the
// retry once ctx is done.
package conflict

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

type node struct{ name string }

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
	if resp.StatusCode == http.StatusConflict {
		return resp.StatusCode, apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, n.name, errors.New("modified"))
	}
	return resp.StatusCode, nil
}

// UpdateNode: the cluster-lifecycle-manager shape: 51 attempts 1s apart,
// only on a conflict; each attempt first re-reads with ctx and stops on its
// failure, so a done ctx ends the retry within one wait. Quiet.
func (a *api) UpdateNode(ctx context.Context, name string) error {
	op := func() error {
		n, err := a.get(ctx, name)
		if err != nil {
			return backoff.Permanent(err)
		}
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

// PutAll: the same schedule retrying every error of a remote write: no
// jitter, and nothing ends it on the caller's deadline.
func (a *api) PutAll(ctx context.Context, n *node) error {
	return backoff.Retry(func() error { // want `wait ignores cancellation: backoff.Retry waits between attempts on a timer of its own \(its backoff is not bound to a context\).*; the retry is also attempt-only: backoff.Retry makes 51 attempts`
		_, err := a.put(ctx, n)
		return err
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 50)) // want `no jitter: backoff.Retry waits 1s, 1s, 1s`
}

// ReadFirst: the first call takes ctx and stops the retry on failure, but
// the retry is of every failure of the write: the jitter finding stays, the
// ctx bounds the attempts. The library's wait does not see ctx: a cancel
// is seen when the wait ends and the read fails.
func (a *api) ReadFirst(ctx context.Context, name string) error {
	return backoff.Retry(func() error { // want `wait ignores cancellation: backoff.Retry waits between attempts on a timer of its own`
		n, err := a.get(ctx, name)
		if err != nil {
			return backoff.Permanent(err)
		}
		_, err = a.put(ctx, n)
		return err
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 50)) // want `no jitter: backoff.Retry waits 1s, 1s, 1s`
}

// Detached: a conflict retry whose re-read runs on a context nobody
// cancels: no jitter needed, but nothing ends it on the caller's deadline.
func (a *api) Detached(ctx context.Context, name string) error {
	return backoff.Retry(func() error { // want `wait ignores cancellation: backoff.Retry waits between attempts on a timer of its own \(its backoff is not bound to a context\).*; the retry is also attempt-only: backoff.Retry makes 51 attempts`
		n, err := a.get(context.Background(), name)
		if err != nil {
			return backoff.Permanent(err)
		}
		_, err = a.put(ctx, n)
		if !apierrors.IsConflict(err) {
			return backoff.Permanent(err)
		}
		return err
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(time.Second), 50))
}

// PutLoop retries 409 and 503 with a constant wait: no jitter.
func (a *api) PutLoop(ctx context.Context, n *node) error {
	var err error
	for i := 0; i < 3; i++ {
		var status int
		if status, err = a.put(ctx, n); err == nil {
			return nil
		}
		if status != http.StatusConflict && status != http.StatusServiceUnavailable {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second): // want `no jitter`
		}
	}
	return err
}

// CasLoop retries 409 only with the same wait: quiet.
func (a *api) CasLoop(ctx context.Context, n *node) error {
	var err error
	for i := 0; i < 3; i++ {
		var status int
		if status, err = a.put(ctx, n); err == nil {
			return nil
		}
		if status != http.StatusConflict {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return err
}
