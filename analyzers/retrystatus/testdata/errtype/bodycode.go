package errtype

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// APIError is the error the API sends in the body of a 4xx or 5xx: its
// Code names the failure ("rate_limited", "conflict", "invalid_input").
type APIError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e APIError) Error() string { return e.Code + ": " + e.Message }

func errorFrom(body []byte) error {
	var wrapper struct {
		Error APIError `json:"error"`
	}
	if json.Unmarshal(body, &wrapper) != nil || wrapper.Error.Code == "" {
		return nil
	}
	return wrapper.Error
}

// retryableCode decides by the code in the body, not by the status.
func retryableCode(err error) bool {
	var ae APIError
	if !errors.As(err, &ae) {
		return false
	}
	return ae.Code == "rate_limited" || ae.Code == "conflict"
}

// DoCoded routes every 4xx and 5xx to the body's error and retries only
// the codes it names: the status test does not decide the retry, so no
// 4xx is retried for its status. Quiet.
func DoCoded(hc *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 400 && resp.StatusCode <= 599 {
			err = errorFrom(body)
			if err != nil && retryableCode(err) {
				time.Sleep(time.Duration(attempt+1) * time.Second)
				continue
			}
			return resp, errors.New("request failed")
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

// retryableAny answers without reading the error at all.
func retryableAny(err error) bool {
	return err != nil
}

// DoAny retries every 4xx and 5xx alike: the permanent ones too. Reported.
func DoAny(hc *http.Client, req *http.Request) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := hc.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 400 && resp.StatusCode <= 599 { // want `retry decision retries 400 \(bad request\), 401 \(unauthorized\), 403 \(forbidden\), 404 \(not found\), 413 \(payload too large\), 422 \(unprocessable\)`
			err = errors.New(string(body))
			if retryableAny(err) {
				time.Sleep(time.Duration(attempt+1) * time.Second)
				continue
			}
			return resp, err
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

// overflow reads the error's text: an input too long for the model.
func overflow(err error) bool {
	return strings.Contains(err.Error(), "context length")
}

// sameModel first leaves out an overflow (its no decides nothing), then
// decides by the status: 429 is given up on by the status alone.
func sameModel(err error) bool {
	if overflow(err) {
		return false
	}
	var se *StatusError
	if errors.As(err, &se) {
		switch se.Code {
		case 500, 502, 503, 504:
			return true
		case 429: // want `retry decision gives up on 429 \(too many requests\) but retries 500, 502, 503, 504`
			return false
		}
	}
	return false
}

// Ask retries the same model on what sameModel says. The 429 finding is
// at the classifier.
func Ask(ctx context.Context, hc *http.Client, url string) error { // want Ask:`retry loop at errtype/bodycode.go:126 gives up on 529`
	var err error
	for i := 0; i < 4; i++ {
		if err = send(ctx, hc, url); err == nil || !sameModel(err) {
			return err
		}
		time.Sleep(time.Duration(i+1) * time.Second)
	}
	return err
}
