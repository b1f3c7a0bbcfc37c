package a

import (
	"fmt"
	"log"
	"net/http"
	"time"
)

// Handlers that write 5xx, metrics that bucket codes, logs: none decides a
// retry.

func handler(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	code := http.StatusServiceUnavailable
	if r.URL.Path == "/x" {
		code = http.StatusBadGateway
	}
	if code == 502 || code == 503 {
		w.WriteHeader(code)
		return
	}
	w.WriteHeader(http.StatusInternalServerError)
}

var buckets = map[int]string{502: "bad_gateway", 503: "unavailable", 504: "timeout"}

func record(counts map[string]int, code int) {
	if code == 502 || code == 503 || code == 504 {
		counts[buckets[code]]++
	}
	switch code {
	case 400, 404, 413:
		counts["client"]++
	}
}

// poll is a loop over codes that is not a retry of a failure: it logs
// and counts every response it sees.
func poll(urls []string, counts map[string]int) {
	for _, u := range urls {
		resp, err := http.Get(u)
		if err != nil {
			log.Printf("get %s: %v", u, err)
			continue
		}
		if resp.StatusCode == 502 || resp.StatusCode == 503 {
			log.Printf("upstream down: %d", resp.StatusCode)
		}
		record(counts, resp.StatusCode)
		resp.Body.Close()
	}
}

func describe(code int) string {
	switch code {
	case 502, 503, 504:
		return fmt.Sprintf("gateway problem %d", code)
	}
	return "ok"
}

// attemptsLoop compares a counter, not a status.
func attemptsLoop(call func() error) error {
	var err error
	for attempt := 0; attempt < 500; attempt++ {
		if err = call(); err == nil {
			return nil
		}
		if attempt == 502 {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	return err
}

// moduleProxy lists every 5xx a module proxy sends, 500 included: 529 is an
// LLM API's overload code that such a server never sends, so no 5xx is
// missed (goproxy's upstream client). Its rate limit (429) is.
func moduleProxy(url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get(url + "/@v/list")
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		switch resp.StatusCode {
		case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout: // want `retry decision retries 500, 502, 503, 504 but not 429`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, fmt.Errorf("proxy unavailable")
}
