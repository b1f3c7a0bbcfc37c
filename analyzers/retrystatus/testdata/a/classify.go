package a

import (
	"errors"
	"net/http"
	"time"
)

// StatusError carries the status of a failed call.
type StatusError struct{ Code int }

func (e *StatusError) Error() string { return http.StatusText(e.Code) }

// isRetryable is used by fetch below: reported here, at the definition.
func isRetryable(code int) bool {
	return code == 502 || code == 503 // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use code >= 500`
}

func fetch(url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		if !isRetryable(statusOf(err)) {
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

// Retryable is exported and used by fetchErr in this package and by
// package b: reported once, here.
func Retryable(err error) bool { // want Retryable:`status classifier: true for 400,503,504; lists 400,503,504; home`
	var se *StatusError
	if errors.As(err, &se) {
		switch se.Code {
		case http.StatusBadRequest, http.StatusServiceUnavailable, http.StatusGatewayTimeout: // want `retry decision lists 5xx codes 503, 504: 500, 502 and 529 \(overloaded\) are not retried; use se.Code >= 500` `retry decision retries 400 \(bad request\)`
			return true
		}
		return false
	}
	return true // network errors
}

func fetchErr(call func() error) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = call(); err == nil {
			return nil
		}
		if !Retryable(err) {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

// IsTransient is exported and used only by package b: reported there.
func IsTransient(err error) bool { // want IsTransient:`status classifier: true for 502,504; lists 502,504$`
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == http.StatusBadGateway || se.Code == http.StatusGatewayTimeout
}

// ShouldRetry uses a range: no finding wherever it is used.
func ShouldRetry(err error) bool { // want ShouldRetry:`status classifier: true for 408,500,.*,599; lists 408$`
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == http.StatusRequestTimeout
	}
	return true
}

// RetryCodes is a list exported for other packages.
var RetryCodes = []int{http.StatusInternalServerError, http.StatusBadGateway}

// isRetryableUnused is named like a classifier but no retry uses it.
func isRetryableUnused(code int) bool {
	return code == 502 || code == 503
}
