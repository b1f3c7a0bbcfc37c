// Package rt builds the clients package caller uses: one whose transport
// retries each request, one whose transport only logs.
package rt

import (
	"log"
	"math/rand/v2"
	"net/http"
	"time"
)

// Retrying sends a request up to 3 times on 5xx or a transport error.
type Retrying struct{ Next http.RoundTripper }

func (t *Retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for i := 0; i < 3; i++ {
		resp, err = t.Next.RoundTrip(req) // want `the request handed to rt.\(\*Retrying\).RoundTrip \(a RoundTripper: its client's every request, POST and PUT bodies too\) is sent again`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if i == 2 {
			break
		}
		if err == nil {
			resp.Body.Close()
		}
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(rand.N(time.Second)):
		}
	}
	return resp, err
}

// Logging logs each request and sends it once.
type Logging struct{ Next http.RoundTripper }

func (t *Logging) RoundTrip(req *http.Request) (*http.Response, error) {
	log.Printf("%s %s", req.Method, req.URL)
	return t.Next.RoundTrip(req)
}

// NewRetrying builds a client whose every request is the transport's retry.
func NewRetrying() *http.Client {
	return &http.Client{Transport: &Retrying{Next: http.DefaultTransport}, Timeout: 30 * time.Second}
}

// NewLogging builds a client that sends each request once.
func NewLogging() *http.Client {
	return &http.Client{Transport: &Logging{Next: http.DefaultTransport}}
}

// Shared is a package-level client with the retrying transport.
var Shared = &http.Client{Transport: &Retrying{Next: http.DefaultTransport}}
