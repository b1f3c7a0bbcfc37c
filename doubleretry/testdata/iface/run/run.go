// Package run retries through prov's interfaces, the way an agent runtime
// retries a model chosen at run time.
package run

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"example.com/t/iface/prov"
)

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func handle(ctx context.Context, s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty answer")
	}
	return len(s), nil
}

// Try waits before each retry in the if's condition and reuses err for
// the call that handles the answer: the provider call is still retried,
// and the openai implementation retries inside.
func Try(ctx context.Context, p prov.Provider, q string) (int, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop \(3 attempts\) at run/run.go:38 wraps openai Chat.Completions.New at oai/oai.go:18 \(through prov.Provider.Complete as oai.\(\*Client\).Complete\), which retries 2 more times .*: up to 9 requests per call`
		if attempt > 0 {
			if !sleepCtx(ctx, time.Second<<attempt) {
				return 0, ctx.Err()
			}
		}
		s, err := p.Complete(ctx, q)
		if err != nil {
			lastErr = err
			continue
		}
		n, err := handle(ctx, s)
		if err != nil {
			lastErr = err
			continue
		}
		return n, nil
	}
	return 0, lastErr
}

// Save retries a store whose only implementation makes no retry: quiet.
func Save(ctx context.Context, st prov.Store, key string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = st.Save(ctx, key); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// Name is not a fallible call: a loop over it is no retry.
func Name(p prov.Provider) string { return strings.ToUpper(p.Name()) }

// retryingReader implements io.Reader with a retry of its own.
type retryingReader struct{ r io.Reader }

func (rr retryingReader) Read(b []byte) (int, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		n, e := rr.r.Read(b)
		if e == nil {
			return n, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return 0, err
}

// ReadAll retries a read through io.Reader: the standard library's
// interfaces are not resolved to this package's implementation (any
// reader may be passed), so it is quiet.
func ReadAll(r io.Reader) ([]byte, error) {
	buf := make([]byte, 512)
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		n, e := r.Read(buf)
		if e == nil {
			return buf[:n], nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return nil, err
}
