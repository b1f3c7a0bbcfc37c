// Package hintunit holds retry hints parsed into a number and turned into
// a wait: with the header's unit, and without it (n nanoseconds).
package hintunit

import (
	"net/http"
	"strconv"
	"time"
)

// throttled carries the server's hint from the response to the policy
// that decides the wait, as an exporter's error value does.
type throttled struct {
	after int64
}

func (throttled) Error() string { return "throttled" }

func newThrottled(h http.Header) error {
	var e throttled
	if s, ok := h["Retry-After"]; ok {
		if n, err := strconv.ParseInt(s[0], 10, 64); err == nil {
			e.after = n
		}
	}
	return e
}

// delay turns the hint into nanoseconds.
func delay(err error) (bool, time.Duration) {
	e, ok := err.(throttled)
	if !ok {
		return false, 0
	}
	return true, time.Duration(e.after) // want `retry hint read as nanoseconds: time.Duration\(e.after\) converts the Retry-After header's count \(parsed at hintunit/hintunit.go:22\) with no unit, so Retry-After: 10 waits 10ns .*; multiply by time.Second`
}

// msDelay reads the AI APIs' millisecond hint, without its unit.
func msDelay(resp *http.Response) time.Duration {
	ms, err := strconv.Atoi(resp.Header.Get("retry-after-ms"))
	if err != nil {
		return 0
	}
	return time.Duration(ms) // want `retry hint read as nanoseconds: time.Duration\(ms\) converts the retry-after-ms header's count .*; multiply by time.Millisecond`
}

// Quiet: the unit is applied where the conversion is.
func seconds(resp *http.Response) time.Duration {
	n, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil {
		return 0
	}
	return time.Duration(n) * time.Second
}

// Quiet: the unit is applied later, to the variable that holds it.
func secondsLater(resp *http.Response) time.Duration {
	n, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil {
		return 0
	}
	d := time.Duration(n)
	d *= time.Second
	return d
}

// Quiet: a number from another header (a count, not a wait).
func remaining(resp *http.Response) time.Duration {
	n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
	if err != nil {
		return 0
	}
	return time.Duration(n)
}

// Quiet: the hint is a date, parsed as one.
func until(resp *http.Response) time.Duration {
	t, err := http.ParseTime(resp.Header.Get("Retry-After"))
	if err != nil {
		return 0
	}
	return time.Until(t)
}
