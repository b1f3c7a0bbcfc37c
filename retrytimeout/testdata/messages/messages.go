// Package messages holds retries whose findings must carry the right
// numbers and name the right source.
package messages

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

var errGaveUp = errors.New("gave up")

// Constant waits picked by a switch: each wait is known to be one of three
// constants, so the message gives them and the bound they make.
func switchWaits(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		var d time.Duration
		switch attempt {
		case 0:
			d = time.Second
		case 1:
			d = 2 * time.Second
		default:
			d = 4 * time.Second
		}
		time.Sleep(d) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 4 attempts, each wait 1s, 2s or 4s, and nothing bounds it in time: up to 16s of waiting plus the 4 attempts`
	}
	return nil, errGaveUp
}

// The same switch with waits that add up to little: under the floor, quiet.
func switchShort(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		d := 50 * time.Millisecond
		if attempt > 1 {
			d = 200 * time.Millisecond
		}
		time.Sleep(d)
	}
	return nil, errGaveUp
}

// The count is a parameter: the message lists the first waits and says
// the rest depend on it, instead of printing eight waits as if known.
func paramCount(c *http.Client, url string, n int) (*http.Response, error) {
	for i := 0; i < n; i++ {
		resp, err := c.Get(url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Duration(1<<i) * time.Second) // want `no jitter: retry loop waits 1s, 2s, 4s, \.\.\. \(as many as its attempts, whose number is not known statically\) with no random part`
	}
	return nil, errGaveUp
}

// A known count: exactly its waits.
func knownCount(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		time.Sleep(time.Duration(1<<i) * time.Second) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 3 attempts with waits 1s, 2s, then 4s after the last failure, and nothing bounds it in time: worst case 7s.*no jitter: retry loop waits 1s, 2s with no random part`
	}
	return nil, errGaveUp
}

// The same loop leaving after its last failure without a wait: two waits.
func knownCountLeaves(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if i == 2 {
			break
		}
		time.Sleep(time.Duration(1<<i) * time.Second) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 3 attempts with waits 1s, 2s and nothing bounds it in time: worst case 3s of waiting`
	}
	return nil, errGaveUp
}

// And waiting only while a turn is left, tested through a variable.
func knownCountLastVar(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		resp, err := get(ctx, c, url)
		if err == nil {
			return resp, nil
		}
		if last := i+1 == 3; !last {
			time.Sleep(time.Duration(1<<i) * time.Second) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 3 attempts with waits 1s, 2s and nothing bounds it in time: worst case 3s of waiting`
		}
	}
	return nil, errGaveUp
}

// A constant backoff of a value the caller gives: said in words, not as
// "(constant (value not constant))".
func constantOfParam(ctx context.Context, c *http.Client, url string, d time.Duration) error {
	return backoff.Retry(func() error { // want `wait ignores cancellation: .*also attempt-only: backoff.Retry makes 4 attempts and nothing bounds it in time \(a constant wait whose value is not known statically\): it keeps waiting`
		resp, err := get(ctx, c, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, backoff.WithMaxRetries(backoff.NewConstantBackOff(d), 3))
}

// A streaming call whose total timeout is the Timeout of the http.Client
// handed to the SDK: the message names that Timeout, not
// option.WithRequestTimeout.
func streamClientTimeout(ctx context.Context, emit func(string)) error {
	client := openai.NewClient(option.WithHTTPClient(&http.Client{Timeout: 30 * time.Second}))
	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{ // want `total timeout on a streaming call: .*30s http.Client Timeout set at`
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	for stream.Next() {
		emit(stream.Current().ID)
	}
	return stream.Err()
}

// option.WithRequestTimeout is named as itself.
func streamRequestTimeout(ctx context.Context, client openai.Client, emit func(string)) error {
	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, option.WithRequestTimeout(20*time.Second)) // want `total timeout on a streaming call: .*20s option.WithRequestTimeout`
	for stream.Next() {
		emit(stream.Current().ID)
	}
	return stream.Err()
}

// Two waits for different times (1s after a network error, 2s after a
// 429): the messages give both, not the first path's list as the schedule.
func twoWaits(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := get(ctx, c, url)
		if err != nil {
			time.Sleep(time.Second) // want `wait ignores cancellation: .*also attempt-only: retry loop makes 3 attempts, each wait 1s or 2s \(it waits at 2 places\), and nothing bounds it in time: up to 4s of waiting.*no jitter: retry loop waits 1s or 2s \(at 2 places\) with no random part`
			continue
		}
		if resp.StatusCode == http.StatusTooManyRequests { // want `retry-after ignored: retry loop retries 429 but waits 1s or 2s without reading the Retry-After header`
			resp.Body.Close()
			time.Sleep(2 * time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errGaveUp
}

// Two short waits: under the floor whichever path runs. Quiet.
func twoShortWaits(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := get(ctx, c, url)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if resp.StatusCode >= 500 {
			resp.Body.Close()
			time.Sleep(200 * time.Millisecond)
			continue
		}
		return resp, nil
	}
	return nil, errGaveUp
}

// get sends a GET on ctx.
func get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}
