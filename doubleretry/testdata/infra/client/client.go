// Package client calls the model service through the mesh: the mesh
// retries what the loops here send.
package client

import (
	"net/http"
	"strings"
	"time"
)

const llmURL = "http://llm.prod.svc.cluster.local/v1/complete"

// Ask retries a request the mesh retries too.
func Ask(q string) (*http.Response, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop \(3 attempts\) at client/client.go:16 wraps a request to http://llm.prod.svc.cluster.local/v1/complete \(client/client.go:17\), which istio VirtualService llm /v1/complete \(retries at deploy/llm.yaml:18\) retries up to 2 more times after the server has it \(on 5xx\): own loop 3 × mesh 3 attempts = up to 9 requests per call; pick one layer: turn the route's retries off \(retries: \{attempts: 0\}\), or drop this loop`
		resp, e := http.Post(llmURL, "text/plain", strings.NewReader(q))
		if e == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return nil, err
}

// Embed: the mesh default on this path retries only a 503 and refused
// connections, which the loop cannot know the server sends.
func Embed(q string) (*http.Response, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		resp, e := http.Post("http://llm.prod.svc.cluster.local/v1/embed", "text/plain", strings.NewReader(q))
		if e == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return nil, err
}

// Elsewhere calls a host no route of the repository serves.
func Elsewhere(q string) (*http.Response, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		resp, e := http.Post("https://api.example.com/v1/complete", "text/plain", strings.NewReader(q))
		if e == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		err = e
		time.Sleep(time.Second)
	}
	return nil, err
}
