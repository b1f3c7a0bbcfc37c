package b

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"example.com/t/a"
)

func Call(call func() error) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if err = call(); err == nil {
			return nil
		}
		if !a.IsTransient(err) { // want `retry decision lists 5xx codes 502, 504 \(in a.IsTransient at a/classify.go:62\): 500, 503 and 529 \(overloaded\) are not retried; use code >= 500`
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

// CallShared uses a classifier its own package already reports.
func CallShared(call func() error) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if err = call(); err == nil {
			return nil
		}
		if !a.Retryable(err) {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

// CallRange uses a range classifier.
func CallRange(call func() error) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if err = call(); err == nil {
			return nil
		}
		if !a.ShouldRetry(err) {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

func Get(url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := http.Get(url + "/v1/messages") // an API that sends 529
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		resp.Body.Close()
		if slices.Contains(a.RetryCodes, resp.StatusCode) { // want `retry decision lists 5xx codes 500, 502 \(in a.RetryCodes at a/classify.go:80\): 503, 504 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			time.Sleep(time.Second)
			continue
		}
		return nil, errors.New(resp.Status)
	}
	return nil, nil
}
