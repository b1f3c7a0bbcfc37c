// Package data holds retry policies handed to a library as data: the
// codes an elastictransport.Config retries (the transport under
// elastictransport.Config, read the same way; the model's shapes testdata
// covers elastictransport.Config itself, whose package pulls in typedapi).
package data

import (
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/elastic/elastic-transport-go/v8/elastictransport"
)

// Permanent codes in the list: every attempt fails the same way.
func permanentCodes() (*elastictransport.Client, error) {
	return elastictransport.New(elastictransport.Config{
		URLs:          []*url.URL{{Scheme: "http", Host: "es:9200"}},
		RetryOnStatus: []int{404, 429, 502, 503, 504}, // want `elastictransport.Config RetryOnStatus retries 404 \(not found\): the same request fails the same way on each of 6 attempts; leave them out`
		MaxRetries:    5,
		RetryBackoff:  func(i int) time.Duration { return time.Duration(i) * 100 * time.Millisecond },
	})
}

// The list held in a package variable.
var retryOn = []int{http.StatusUnauthorized, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable}

func permanentFromVar() (*elastictransport.Client, error) {
	return elastictransport.New(elastictransport.Config{
		RetryOnStatus: retryOn, // want `elastictransport.Config RetryOnStatus retries 401 \(unauthorized\), 413 \(payload too large\): the same request fails the same way on each of 4 attempts; leave them out \(413: shrink the request instead\)`
	})
}

// Two 5xx codes that replace the default and drop the gateway codes.
func dropsGateway() (*elastictransport.Client, error) {
	cfg := elastictransport.Config{
		RetryOnStatus: []int{500, 503}, // want `elastictransport.Config RetryOnStatus lists 5xx codes 500, 503 and replaces the default 502, 503, 504: 502 and 504 are no longer retried`
	}
	return elastictransport.New(cfg)
}

// ---- quiet ----

// The default extended with 429: a policy.
func extendsDefault() (*elastictransport.Client, error) {
	return elastictransport.New(elastictransport.Config{
		RetryOnStatus: []int{429, 502, 503, 504},
		RetryBackoff:  func(i int) time.Duration { return time.Duration(rand.IntN(100*i)) * time.Millisecond },
	})
}

// One 5xx code is a choice, not an enumeration.
func only503() (*elastictransport.Client, error) {
	return elastictransport.New(elastictransport.Config{RetryOnStatus: []int{429, 503}})
}

// Retries off: the list is never read. 500 is never sent by this
// cluster's proxy either way, and 529 is no code Elasticsearch sends.
func disabled() (*elastictransport.Client, error) {
	return elastictransport.New(elastictransport.Config{
		RetryOnStatus: []int{404, 502, 503},
		DisableRetry:  true,
	})
}

// The library's defaults: written nowhere, not reported.
func defaults() (*elastictransport.Client, error) {
	return elastictransport.New(elastictransport.Config{URLs: []*url.URL{{Scheme: "http", Host: "es:9200"}}})
}

// A handler that writes 5xx codes decides no retry.
func handler(w http.ResponseWriter, r *http.Request) {
	failing := []int{http.StatusNotFound, http.StatusBadGateway, http.StatusServiceUnavailable}
	w.WriteHeader(failing[rand.IntN(len(failing))])
}

// A metrics label set of status codes.
var statusLabels = map[int]string{404: "not_found", 500: "internal", 502: "bad_gateway", 503: "unavailable"}

// A list of codes used for logging.
func logCodes(code int) {
	for _, c := range []int{401, 403, 502, 503} {
		if c == code {
			log.Printf("notable status %d (%s)", c, statusLabels[c])
		}
	}
}
