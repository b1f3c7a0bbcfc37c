// Package gaps holds the cases doubleretry's first real-code runs found
// the retry model missing, now covered: a compound success test (Cond), an
// interface call with one implementation in the package (Lookup), a client
// built two packages away (Brief), wait.ExponentialBackoff used to poll
// (WaitReady, quiet), and a retry loop nested in another (Nested).
package gaps

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"k8s.io/apimachinery/pkg/util/wait"

	"example.com/t/b"
)

func params(q string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q)},
	}
}

type Agent struct{ oa openai.Client }

func NewAgent() *Agent { return &Agent{oa: openai.NewClient(option.WithAPIKey("k"))} }

func (a *Agent) Search(ctx context.Context, q string) (string, error) {
	resp, err := a.oa.Chat.Completions.New(ctx, params(q))
	if err != nil {
		return "", err
	}
	return resp.Choices[0].Message.Content, nil
}

var errEmpty = errors.New("empty answer")

// Cond retries on an error or an empty answer.
func (a *Agent) Cond(ctx context.Context, q string) (string, error) {
	var last error
	for i := range 4 { // want `retry loop \(4 attempts\) at gaps/gaps.go:\d+ wraps openai Chat.Completions.New at gaps/gaps.go:\d+ \(through gaps.\(\*Agent\).Search\), which retries 2 more times by default \(client built at gaps/gaps.go:\d+\): up to 12 requests per call`
		out, err := a.Search(ctx, q)
		if err == nil && out != "" {
			return out, nil
		}
		if err == nil {
			err = errEmpty
		}
		last = err
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
	return "", last
}

// Searcher is implemented in this package by *Agent only.
type Searcher interface {
	Search(ctx context.Context, q string) (string, error)
}

// Lookup retries through the interface.
func Lookup(ctx context.Context, s Searcher, q string) (string, error) {
	var err error
	for i := 0; i < 2; i++ { // want `retry loop \(2 attempts\) at gaps/gaps.go:\d+ wraps openai Chat.Completions.New at gaps/gaps.go:\d+ \(through gaps.\(\*Agent\).Search\), which retries 2 more times by default \(client built at gaps/gaps.go:\d+\): up to 6 requests per call`
		var out string
		if out, err = s.Search(ctx, q); err == nil {
			return out, nil
		}
		time.Sleep(time.Second)
	}
	return "", err
}

// Brief retries b.Brief, whose SDK call (in package b) uses package c's
// client variable: three packages, the client's position must cross two.
func Brief(ctx context.Context, q string) (string, error) {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at gaps/gaps.go:\d+ wraps openai Chat.Completions.New at b/b.go:\d+ \(through b.Brief\), which retries 2 more times by default \(client built at c/c.go:\d+\): up to 9 requests per call`
		var s string
		if s, err = b.Brief(ctx, q); err == nil {
			return s, nil
		}
		time.Sleep(time.Second)
	}
	return "", err
}

func ping(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Nested: an inner retry loop inside the outer loop's body, in one
// function.
func Nested(url string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at gaps/gaps.go:\d+ wraps retry loop \(2 attempts\) at gaps/gaps.go:\d+: up to 6 requests per call; pick one layer: drop the inner retry loop at gaps/gaps.go:\d+, or drop this loop`
		for j := 0; j < 2; j++ {
			if err = ping(url); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// WaitReady polls until the remote end reports ready: an error ends the
// wait at once, "not ready yet" waits and asks again. A poll, not a retry,
// around a retrying client: quiet.
func WaitReady(ctx context.Context, url string) error {
	rc := retryablehttp.NewClient()
	return wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Steps: 8, Duration: time.Second, Factor: 2}, func(ctx context.Context) (bool, error) {
		resp, err := rc.Get(url)
		if err != nil {
			return true, err
		}
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}
