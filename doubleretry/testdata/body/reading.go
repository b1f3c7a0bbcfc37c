package body

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"time"
)

// An API client whose Do retries on what the response says: the error
// in the body (errorFromResponse), or a check of the response handed the
// response (checkResponse). The reading fails because the send's answer
// was a failure, so the retry repeats the send.

type API struct {
	hc    *http.Client
	debug io.Writer
}

type apiError struct {
	Code string
}

func (e apiError) Error() string { return e.Code }

func errorFromResponse(resp *http.Response, body []byte) error {
	var w struct{ Error apiError }
	if json.Unmarshal(body, &w) != nil || w.Error.Code == "" {
		return nil
	}
	return w.Error
}

func retryable(err error) bool {
	var e apiError
	return errors.As(err, &e) && (e.Code == "rate_limited" || e.Code == "locked")
}

func (a *API) newRequest(ctx context.Context, method, url string, body io.Reader) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, method, url, body)
}

// Do sends r again when the body's error code says so: r's body was read
// by the first send (a debug dump of it puts back the nothing it read).
// Reported.
func (a *API) Do(r *http.Request, v any) error {
	for retries := 0; ; retries++ {
		if a.debug != nil {
			dump, err := httputil.DumpRequestOut(r, true)
			if err != nil {
				return err
			}
			a.debug.Write(dump)
		}
		resp, err := a.hc.Do(r) // want `the POST request built at body/reading.go:\d+ is sent again by the retry loop at body/reading.go:\d+ with the body the first attempt read to its end`
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode >= 400 {
			err = errorFromResponse(resp, body)
			if err != nil && retryable(err) && retries < 5 {
				time.Sleep(time.Second)
				continue
			}
			return errors.New("request failed")
		}
		return json.Unmarshal(body, v)
	}
}

func (a *API) CreateServer(ctx context.Context, name string) error {
	data, _ := json.Marshal(map[string]string{"name": name})
	req, err := a.newRequest(ctx, http.MethodPost, "https://api.example.com/servers", bytes.NewReader(data))
	if err != nil {
		return err
	}
	var out map[string]any
	return a.Do(req, &out)
}

func checkResponse(resp *http.Response) error {
	if resp.StatusCode >= 500 {
		return errors.New(resp.Status)
	}
	return nil
}

// Fetch checks the response in the if's own statement and goes round on
// its error: the send is what repeats, with a body built once. Reported.
func (a *API) Fetch(ctx context.Context, payload []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "https://api.example.com/blob", bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	for i := 0; i < 3; i++ {
		resp, err := a.hc.Do(req) // want `the PUT request built at body/reading.go:\d+ is sent again by the retry loop at body/reading.go:\d+ with the body the first attempt read to its end`
		if err != nil {
			return nil, err
		}
		if err := checkResponse(resp); err != nil {
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}

// FetchFresh builds the request in each attempt. Quiet.
func (a *API) FetchFresh(ctx context.Context, payload []byte) (*http.Response, error) {
	for i := 0; i < 3; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, "https://api.example.com/blob", bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		resp, err := a.hc.Do(req)
		if err != nil {
			return nil, err
		}
		if err := checkResponse(resp); err != nil {
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("gave up")
}
