package noclass

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
)

type apiError struct{ status int }

func (e *apiError) Error() string { return fmt.Sprintf("API error: status %d", e.status) }

type llm struct {
	c          *http.Client
	url        string
	maxRetries int
}

// attempt makes the request and turns every status but 200 into an error.
func (l *llm) attempt(ctx context.Context, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	resp, err := l.c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", &apiError{status: resp.StatusCode}
	}
	return string(out), nil
}

// The loop retries every error of attempt, so every failing status: a
// 401 is sent again maxRetries times.
func (l *llm) Generate(ctx context.Context, body []byte) (string, error) {
	for i := 0; i <= l.maxRetries; i++ { // want `retry without a classifier: retry loop retries every status of http.Client.Do in noclass.\(\*llm\).attempt but success, so 400, 401, 403 and 413`
		out, err := l.attempt(ctx, body)
		if err == nil {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return "", errors.New("gave up")
}

// The loop reads the error before retrying: quiet.
func (l *llm) GenerateRead(ctx context.Context, body []byte) (string, error) {
	for i := 0; i <= l.maxRetries; i++ {
		out, err := l.attempt(ctx, body)
		if err == nil {
			return out, nil
		}
		var ae *apiError
		if errors.As(err, &ae) && ae.status != http.StatusTooManyRequests && ae.status < 500 {
			return "", err
		}
		time.Sleep(2 * time.Second)
	}
	return "", errors.New("gave up")
}

// attemptServer gives a 4xx back as a result and fails only on 5xx.
func (l *llm) attemptServer(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := l.c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return 0, &apiError{status: resp.StatusCode}
	}
	return resp.StatusCode, nil
}

// Only 5xx and transport errors come back as errors: quiet.
func (l *llm) Status(ctx context.Context) (int, error) {
	for i := 0; i < 3; i++ {
		code, err := l.attemptServer(ctx)
		if err == nil {
			return code, nil
		}
		time.Sleep(time.Second)
	}
	return 0, errors.New("gave up")
}

// attemptLocal makes no request: a retry of it is not remote. Quiet.
func (l *llm) attemptLocal(b []byte) error {
	if len(b) == 0 {
		return errors.New("empty")
	}
	return nil
}

func (l *llm) Local(b []byte) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = l.attemptLocal(b); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// attemptCut turns every status from 300 up into an error: code < 300 is
// a test for success, as != 200 is.
func (l *llm) attemptCut(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := l.c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 300 {
		return nil
	}
	return &apiError{status: resp.StatusCode}
}

func (l *llm) Upload(ctx context.Context, body []byte) error {
	var err error
	for i := 0; i != l.maxRetries; i++ { // want `retry without a classifier: retry loop retries every status of http.Client.Do in noclass.\(\*llm\).attemptCut but success`
		if err = l.attemptCut(ctx, body); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}

// attemptRange fails 5xx apart from the rest: code >= 500 tells failures
// apart, and a 4xx comes back as a result. Quiet.
func (l *llm) attemptRange(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := l.c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, nil
	}
	if resp.StatusCode >= 500 {
		return 0, &apiError{status: resp.StatusCode}
	}
	return resp.StatusCode, nil
}

func (l *llm) Poll(ctx context.Context) (int, error) {
	for i := 0; i < 3; i++ {
		code, err := l.attemptRange(ctx)
		if err == nil {
			return code, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return 0, errors.New("gave up")
}

// push hands the response to report, which turns the status into the
// error: the loop retries what report returns.
func (l *llm) push(b []byte) error {
	req, err := http.NewRequest(http.MethodPost, l.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := l.c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return l.report(resp)
}

func (l *llm) report(resp *http.Response) error {
	if resp.StatusCode < 300 {
		return nil
	}
	msg, _ := io.ReadAll(resp.Body)
	return fmt.Errorf("%s: %s", resp.Status, msg)
}

func (l *llm) Flush(b []byte, quit <-chan struct{}) {
	for i := 0; i < 10; i++ { // want `retry without a classifier: retry loop retries every status of http.Client.Do in noclass.\(\*llm\).push but success`
		if l.push(b) == nil {
			return
		}
		select {
		case <-time.After(time.Second):
		case <-quit:
			return
		}
	}
}

// pushChecked's helper gives up on 4xx with a marker of its own kind:
// the retry sees a classified error. Quiet.
func (l *llm) pushChecked(b []byte) error {
	req, err := http.NewRequest(http.MethodPost, l.url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := l.c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return l.check(resp)
}

func (l *llm) check(resp *http.Response) error {
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("transient: %s", resp.Status)
	}
	return backoff.Permanent(fmt.Errorf("rejected: %s", resp.Status))
}

func (l *llm) FlushChecked(ctx context.Context, b []byte) error {
	return backoff.Retry(func() error { return l.pushChecked(b) },
		backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 4), ctx))
}

type strategy int

const (
	noRetry strategy = iota
	backOff
)

// attemptVerdict hands back, beside the error of every failing status, a
// verdict its strategy function reads from the status.
func (l *llm) attemptVerdict(req *http.Request, decide func(int) strategy) (*http.Response, strategy, error) {
	resp, err := l.c.Do(req)
	if err != nil {
		return nil, noRetry, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, noRetry, nil
	}
	return resp, decide(resp.StatusCode), fmt.Errorf("HTTP %d", resp.StatusCode)
}

// The loop goes round only when the verdict says so: quiet.
func (l *llm) DoVerdict(req *http.Request, decide func(int) strategy) (*http.Response, error) {
	for i := 0; i < 4; i++ {
		resp, st, err := l.attemptVerdict(req, decide)
		if st == noRetry || err == nil {
			return resp, err
		}
		resp.Body.Close()
		time.Sleep(time.Second)
	}
	return nil, errors.New("gave up")
}

func (l *llm) notifyFailure(b []byte, err error) { fmt.Println(len(b), err) }

func (l *llm) retryable(err error) bool { return !errors.Is(err, io.ErrUnexpectedEOF) }

// A callback handed the error answers nothing: the loop still retries
// every failing status.
func (l *llm) FlushNotify(b []byte) {
	for i := 0; i < 10; i++ { // want `retry without a classifier: retry loop retries every status of http.Client.Do in noclass.\(\*llm\).push but success`
		err := l.push(b)
		if err == nil {
			return
		}
		l.notifyFailure(b, err)
		time.Sleep(time.Second)
	}
}

// A helper whose answer decides: quiet.
func (l *llm) FlushClassified(b []byte) {
	for i := 0; i < 10; i++ {
		err := l.push(b)
		if err == nil || !l.retryable(err) {
			return
		}
		time.Sleep(time.Second)
	}
}
