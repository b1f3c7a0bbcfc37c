package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// OpenAIEvery429 retries every 429, quota included.
func OpenAIEvery429(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var out *openai.ChatCompletion
		out, err = c.Chat.Completions.New(ctx, p)
		if err == nil {
			return out, nil
		}
		var apiErr *openai.Error
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusTooManyRequests { // want `retry decision retries every 429 without reading the error's code or type: an exhausted quota \(insufficient_quota\) is attempted 5 times before it fails; give up when the code says so`
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		if errors.As(err, &apiErr) && apiErr.StatusCode >= 500 {
			time.Sleep(time.Second)
			continue
		}
		return nil, err
	}
	return nil, err
}

// OpenAIQuota reads the code first: quiet.
func OpenAIQuota(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var out *openai.ChatCompletion
		out, err = c.Chat.Completions.New(ctx, p)
		if err == nil {
			return out, nil
		}
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) {
			return nil, err
		}
		if apiErr.Code == "insufficient_quota" {
			return nil, err
		}
		if apiErr.StatusCode == 429 || apiErr.StatusCode >= 500 {
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		return nil, err
	}
	return nil, err
}

// anthropicRetryable reads the error type.
func anthropicRetryable(err error) bool {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return true
	}
	switch apiErr.Type() {
	case anthropic.ErrorTypeBillingError, anthropic.ErrorTypeInvalidRequestError:
		return false
	}
	return apiErr.StatusCode == 429 || apiErr.StatusCode >= 500
}

func Anthropic(ctx context.Context, c anthropic.Client, p anthropic.MessageNewParams) (*anthropic.Message, error) {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		var m *anthropic.Message
		if m, err = c.Messages.New(ctx, p); err == nil {
			return m, nil
		}
		if !anthropicRetryable(err) {
			return nil, err
		}
		time.Sleep(time.Duration(1<<attempt) * time.Second)
	}
	return nil, err
}

// anthropicStatusOnly keys on the number. Quiet: Anthropic's 429 is only
// ever a rate limit (rate_limit_error); a spent balance is a 400 or 402.
func anthropicStatusOnly(err error) bool {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode == 429 || apiErr.StatusCode >= 500
	}
	return false
}

func Anthropic2(ctx context.Context, c anthropic.Client, p anthropic.MessageNewParams) (*anthropic.Message, error) {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		var m *anthropic.Message
		if m, err = c.Messages.New(ctx, p); err == nil {
			return m, nil
		}
		if !anthropicStatusOnly(err) {
			return nil, err
		}
		time.Sleep(time.Duration(1<<attempt) * time.Second)
	}
	return nil, err
}

type errorBody struct {
	Error struct {
		Code string `json:"code"`
		Type string `json:"type"`
	} `json:"error"`
}

// RawHTTP decodes the JSON error body before retrying a 429: quiet.
func RawHTTP(req func() (*http.Response, error)) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := req()
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			var body errorBody
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if json.Unmarshal(data, &body) == nil && body.Error.Code == "insufficient_quota" {
				return nil, errors.New("quota exhausted")
			}
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		if resp.StatusCode >= 500 {
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// RawOpenAI posts to the OpenAI endpoint and retries every 429.
func RawOpenAI(body func() io.Reader) (*http.Response, error) {
	for attempt := 0; attempt < 6; attempt++ {
		resp, err := http.Post("https://api.openai.com/v1/chat/completions", "application/json", body())
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 { // want `retry decision retries every 429 without reading the error's code or type: an exhausted quota \(insufficient_quota\) is attempted 6 times before it fails`
			resp.Body.Close()
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// RetryKnownRace retries one 400 whose message names a known race (as
// openai-go's agent stream does): the body is read, so it is no blind
// retry of a permanent code. Quiet.
func RetryKnownRace(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) error {
	for attempt := 0; ; attempt++ {
		_, err := c.Chat.Completions.New(ctx, p)
		if err == nil {
			return nil
		}
		var apiErr *openai.Error
		if attempt == 3 || !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "invalid_request_error" {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// RawAnthropic posts to the Anthropic endpoint and retries every 429:
// quiet, its 429 is a rate limit.
func RawAnthropic(body func() io.Reader) (*http.Response, error) {
	for attempt := 0; attempt < 6; attempt++ {
		resp, err := http.Post("https://api.anthropic.com/v1/messages", "application/json", body())
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			resp.Body.Close()
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// RawGemini retries every 429 from Gemini, whose RESOURCE_EXHAUSTED covers
// an exhausted quota as well as a rate limit.
func RawGemini(body func() io.Reader) (*http.Response, error) {
	const url = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := http.Post(url, "application/json", body())
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 { // want `retry decision retries every 429 without reading the error's code or type: an exhausted quota \(RESOURCE_EXHAUSTED\) is attempted 4 times`
			resp.Body.Close()
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}
