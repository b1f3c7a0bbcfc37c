// Package stream holds streaming calls under total timeouts, next to the
// inactivity timeouts that are meant.
package stream

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// (7) An SSE body read line by line through a client with a 30s Timeout.
func sse(ctx context.Context, url string, emit func(string)) error {
	c := &http.Client{Timeout: 30 * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req) // want `total timeout on a streaming call: .*30s http.Client Timeout`
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		emit(sc.Text())
	}
	return sc.Err()
}

var shortClient = &http.Client{Timeout: 20 * time.Second}

// (7) A context timeout on a body decoded chunk by chunk.
func ndjson(parent context.Context, url string, emit func(map[string]any)) error {
	ctx, cancel := context.WithTimeout(parent, 45*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req) // want `total timeout on a streaming call: .*45s context timeout`
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		emit(m)
	}
}

// quiet: a package client with a Timeout, used for a body read at once.
func whole(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := shortClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// quiet: an inactivity timeout: the stream is cancelled only when no chunk
// arrives for 15s.
func inactivity(parent context.Context, url string, emit func(string)) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	idle := time.AfterFunc(15*time.Second, cancel)
	defer idle.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		idle.Reset(15 * time.Second)
		emit(line)
	}
}

// (7) openai-go streaming under a context timeout.
func openaiStream(parent context.Context, client openai.Client, emit func(string)) error {
	ctx, cancel := context.WithTimeout(parent, time.Minute)
	defer cancel()
	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{ // want `total timeout on a streaming call: .*60s context timeout`
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")},
	})
	defer stream.Close()
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			emit(ch.Delta.Content)
		}
	}
	return stream.Err()
}

// (7) openai-go streaming with a request timeout option.
func openaiStreamOption(ctx context.Context, client openai.Client, emit func(string)) error {
	stream := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")},
	}, option.WithRequestTimeout(30*time.Second)) // want `total timeout on a streaming call: .*30s option.WithRequestTimeout`
	defer stream.Close()
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			emit(ch.Delta.Content)
		}
	}
	return stream.Err()
}

// (7) anthropic-sdk-go streaming with a client-wide request timeout.
func anthropicStream(ctx context.Context, emit func(string)) error {
	client := anthropic.NewClient(aoption.WithRequestTimeout(20 * time.Second))
	stream := client.Messages.NewStreaming(ctx, anthropic.MessageNewParams{ // want `total timeout on a streaming call: .*20s option.WithRequestTimeout`
		Model:     anthropic.ModelClaudeSonnet4_5,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))},
	})
	defer stream.Close()
	for stream.Next() {
		ev := stream.Current()
		if d, ok := ev.AsAny().(anthropic.ContentBlockDeltaEvent); ok {
			emit(d.Delta.Text)
		}
	}
	return stream.Err()
}

// quiet: streaming with no total timeout (the caller's ctx bounds it).
func anthropicStreamPlain(ctx context.Context, client anthropic.Client, emit func(string)) error {
	stream := client.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_5,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))},
	})
	defer stream.Close()
	for stream.Next() {
		emit(stream.Current().Type)
	}
	return stream.Err()
}

// quiet: a non-streaming SDK call under a timeout is an ordinary timeout.
func openaiOnce(parent context.Context, client openai.Client) (string, error) {
	ctx, cancel := context.WithTimeout(parent, time.Minute)
	defer cancel()
	res, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")},
	})
	if err != nil {
		return "", err
	}
	return res.Choices[0].Message.Content, nil
}

// quiet: a CSV download read line by line is not a stream of events.
func csvLines(ctx context.Context, url string, emit func(string)) error {
	c := &http.Client{Timeout: 30 * time.Second}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		emit(sc.Text())
	}
	return sc.Err()
}

// (7) SSE parsed by hand: the "data:" prefix marks the stream.
func sseByHand(url string, emit func(string)) error {
	resp, err := shortClient.Get(url) // want `total timeout on a streaming call: .*20s http.Client Timeout`
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if strings.HasPrefix(line, "data: ") {
			emit(strings.TrimPrefix(line, "data: "))
		}
	}
}

// An API client whose constructor sets a total Timeout, with options that
// may replace the client.
type apiClient struct {
	http *http.Client
}

func newAPIClient(opts ...func(*apiClient)) *apiClient {
	c := &apiClient{http: &http.Client{Timeout: 30 * time.Second}}
	for _, o := range opts {
		o(c)
	}
	return c
}

func withHTTPClient(h *http.Client) func(*apiClient) {
	return func(c *apiClient) { c.http = h }
}

// (7) The agent's event stream goes through the client built with 30s.
func (c *apiClient) run(ctx context.Context, url string, emit func(string)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.http.Do(req) // want `total timeout on a streaming call: .*30s http.Client Timeout set at stream/stream.go:\d+ \(the client it is built with; other values are given at stream/stream.go:\d+\)`
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		emit(sc.Text())
	}
	return sc.Err()
}
