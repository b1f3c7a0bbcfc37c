package errtype

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
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
