package gaps

// Loops the retry model first missed: the status is tested on the
// err == nil path through a switch, a set, a local copy or a classifier
// call, and the loop read as a poller.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"
)

const (
	codeBadGateway  = 502
	codeUnavailable = 503
)

var retryableCodes = []int{codeBadGateway, codeUnavailable, http.StatusGatewayTimeout}

var retrySet = map[int]bool{
	http.StatusTooManyRequests:    true,
	http.StatusBadGateway:         true,
	http.StatusServiceUnavailable: true,
	http.StatusNotFound:           false,
}

func codesToRetry() []int {
	return []int{500, 502, 503}
}

func getSwitch(url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second << attempt)
			continue
		}
		switch resp.StatusCode {
		case http.StatusOK:
			return resp, nil
		case 502, 503, 504: // want `retry decision lists 5xx codes 502, 503, 504: 500 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			resp.Body.Close()
			time.Sleep(time.Second << attempt)
		default:
			return nil, fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	return nil, errors.New("out of attempts")
}

func getSliceVar(url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if slices.Contains(retryableCodes, resp.StatusCode) { // want `retry decision lists 5xx codes 502, 503, 504: 500 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

func getMapVar(url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if !retrySet[resp.StatusCode] { // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

func getCommaOK(url string) (*http.Response, error) {
	set := map[int]struct{}{502: {}, 503: {}, 529: {}}
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if _, ok := set[resp.StatusCode]; ok { // want `retry decision lists 5xx codes 502, 503, 529: 500 and 504 are not retried; use resp.StatusCode >= 500`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

func getFuncList(url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := http.Get(url + "/v1/messages") // an API that sends 529
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if slices.Contains(codesToRetry(), resp.StatusCode) { // want `retry decision lists 5xx codes 500, 502, 503: 504 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// getPermanent retries codes that fail the same way every time.
func getPermanent(url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		switch {
		case resp.StatusCode < 300:
			return resp, nil
		case resp.StatusCode == http.StatusRequestEntityTooLarge, resp.StatusCode == http.StatusNotFound: // want `retry decision retries 404 \(not found\), 413 \(payload too large\): the same request fails the same way on each of 3 attempts; give up on them \(413: shrink the input instead\)`
			resp.Body.Close()
			time.Sleep(time.Second)
		case resp.StatusCode >= 500:
			resp.Body.Close()
			time.Sleep(time.Second)
		default:
			return nil, fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	return nil, errors.New("out of attempts")
}

// getGiveUpOn4xx names permanent codes only to give up on them.
func getGiveUpOn4xx(ctx context.Context, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		switch resp.StatusCode {
		case 400, 401, 403, 404, 413, 422:
			return nil, fmt.Errorf("permanent: %d", resp.StatusCode)
		case 200:
			return resp, nil
		}
		resp.Body.Close()
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

type StatusError struct{ Code int }

func (e *StatusError) Error() string { return http.StatusText(e.Code) }

func retryable(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && (se.Code == 502 || se.Code == 503) // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use se.Code >= 500`
}

// callCombined tests success and the classifier in one condition.
func callCombined(call func() error) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = call(); err == nil || !retryable(err) {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

// statusOnly retries on status but returns transport errors at once.
func statusOnly(url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get(url)
		if err != nil { // want `gives up on the first error of the send itself`
			return nil, err
		}
		if resp.StatusCode == 502 || resp.StatusCode == 504 { // want `retry decision lists 5xx codes 502, 504: 500, 503 and 529 \(overloaded\) are not retried; use resp.StatusCode >= 500`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// localCopy tests a copy of the status on the success path.
func localCopy(url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		code := resp.StatusCode
		if code < 300 {
			return resp, nil
		}
		resp.Body.Close()
		if code != 502 && code != 503 { // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use code >= 500`
			return nil, errors.New(resp.Status)
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}
