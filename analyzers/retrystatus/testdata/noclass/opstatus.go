package noclass

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
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
