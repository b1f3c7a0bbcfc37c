package a

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"time"
)

const (
	codeBadGateway  = 502
	codeUnavailable = 503
)

// retryableCodes is the list the loops below consult.
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

// getAll4xx retries every client error.
func getAll4xx(url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode >= 400 { // want `retry decision retries 400 \(bad request\), 401 \(unauthorized\), 403 \(forbidden\), 404 \(not found\), 413 \(payload too large\), 422 \(unprocessable\)`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// ---- not findings ----

// getRange is the fix: a range check catches 529 and every other 5xx.
func getRange(url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(time.Second)
				continue
			}
			return nil, err
		}
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooEarly {
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("out of attempts")
}

// getSuccessOnly retries every non-2xx: it names no code (no enumeration
// or permanent-code finding), but it has no classifier at all.
func getSuccessOnly(url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ { // want `retry without a classifier: retry loop retries every status of http.Get but success`
		resp, err := http.Get(url)
		if err == nil && resp.StatusCode == http.StatusOK {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

// get503Special waits longer on 503 but retries every 5xx.
func get503Special(url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode < 500 {
			return resp, nil
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			time.Sleep(5 * time.Second)
			continue
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

// do returns a *StatusError for every non-2xx response.
func do(url string) (*http.Response, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		resp.Body.Close()
		return nil, &StatusError{Code: resp.StatusCode}
	}
	return resp, nil
}

func statusOf(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// The loops below test the status carried by the error.

func errSwitch(url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		switch statusOf(err) {
		case 502, 503, 504: // want `retry decision lists 5xx codes 502, 503, 504: 500 and 529 \(overloaded\) are not retried; use statusOf\(err\) >= 500`
			time.Sleep(time.Second << attempt)
		default:
			return nil, err
		}
	}
	return nil, errors.New("out of attempts")
}

func errSliceVar(url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		if !slices.Contains(retryableCodes, statusOf(err)) { // want `retry decision lists 5xx codes 502, 503, 504: 500 and 529 \(overloaded\) are not retried; use statusOf\(err\) >= 500`
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

func errMapVar(url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		code := statusOf(err)
		if !retrySet[code] { // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use code >= 500`
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

func errCommaOK(url string) (*http.Response, error) {
	set := map[int]struct{}{502: {}, 503: {}, 529: {}}
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		if _, ok := set[statusOf(err)]; !ok { // want `retry decision lists 5xx codes 502, 503, 529: 500 and 504 are not retried; use statusOf\(err\) >= 500`
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

func errFuncList(url string) (*http.Response, error) {
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := do(url + "/v1/messages") // an API that sends 529
		if err == nil {
			return resp, nil
		}
		if slices.Contains(codesToRetry(), statusOf(err)) { // want `retry decision lists 5xx codes 500, 502, 503: 504 and 529 \(overloaded\) are not retried; use statusOf\(err\) >= 500`
			time.Sleep(time.Second)
			continue
		}
		return nil, err
	}
	return nil, errors.New("out of attempts")
}

// errPermanent retries codes that fail the same way every time.
func errPermanent(url string) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		var se *StatusError
		if !errors.As(err, &se) {
			time.Sleep(time.Second)
			continue
		}
		switch {
		case se.Code == http.StatusRequestEntityTooLarge, se.Code == http.StatusNotFound: // want `retry decision retries 404 \(not found\), 413 \(payload too large\): the same request fails the same way on each of 3 attempts; give up on them \(413: shrink the input instead\)`
			time.Sleep(time.Second)
		case se.Code >= 500:
			time.Sleep(time.Second)
		default:
			return nil, fmt.Errorf("status %d", se.Code)
		}
	}
	return nil, errors.New("out of attempts")
}

// errGiveUpOn4xx names permanent codes only to give up on them: quiet.
func errGiveUpOn4xx(ctx context.Context, url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		switch statusOf(err) {
		case 400, 401, 403, 404, 413, 422:
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

// errRangeLoop ranges over a list to decide.
func errRangeLoop(url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		if !inList(statusOf(err)) {
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

func inList(code int) bool {
	for _, c := range []int{http.StatusBadGateway, http.StatusServiceUnavailable} {
		if c == code { // want `retry decision lists 5xx codes 502, 503: 500, 504 and 529 \(overloaded\) are not retried; use code >= 500`
			return true
		}
	}
	return false
}

// intSet is a set type with a constructor, as minio-go's set.IntSet.
type intSet map[int]struct{}

func newIntSet(codes ...int) intSet {
	s := intSet{}
	for _, c := range codes {
		s[c] = struct{}{}
	}
	return s
}

func (s intSet) Contains(c int) bool {
	_, ok := s[c]
	return ok
}

var retryableSet = newIntSet(http.StatusTooManyRequests, 499, http.StatusInternalServerError,
	http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, 520)

func errConstructorSet(url string) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := do(url + "/v1/messages") // an API that sends 529
		if err == nil {
			return resp, nil
		}
		if !retryableSet.Contains(statusOf(err)) { // want `retry decision lists 5xx codes 500, 502, 503, 504, 520: 529 \(overloaded\) is not retried; use statusOf\(err\) >= 500`
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

// errRefresh retries a 401 once the token is refreshed and a 413 once the
// input is truncated: not the same request again. Quiet.
func errRefresh(url string, refreshToken func() error, truncateInput func()) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ {
		resp, err := do(url)
		if err == nil {
			return resp, nil
		}
		switch statusOf(err) {
		case http.StatusUnauthorized:
			if rerr := refreshToken(); rerr != nil {
				return nil, rerr
			}
		case http.StatusRequestEntityTooLarge:
			truncateInput()
		default:
			if statusOf(err) < 500 {
				return nil, err
			}
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("out of attempts")
}

type tokenClient struct {
	hc    *http.Client
	token string
}

func (c *tokenClient) refresh() error { return nil }

// reusedErr refreshes the token into the loop's own err before going round:
// the request's failure is still what the loop retries, and every status
// above 401 but 404 is sent again, 403, 413 and 422 among them.
func (c *tokenClient) reusedErr(url string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		resp, err := c.hc.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode == http.StatusUnauthorized {
			resp.Body.Close()
			err = c.refresh()
			if err != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode > 401 && resp.StatusCode != 404 { // want `retry decision retries 403 \(forbidden\), 413 \(payload too large\), 422 \(unprocessable\): the same request fails the same way on each of 5 attempts`
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("too many retries")
}

// reusedErrRange: the same loop giving up on every 4xx but the 401 it
// refreshes for. Quiet.
func (c *tokenClient) reusedErrRange(url string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		resp, err := c.hc.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode == http.StatusUnauthorized {
			resp.Body.Close()
			err = c.refresh()
			if err != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errors.New("too many retries")
}

// headerFromParam: a header set under a test of a parameter before the
// request goes out. The test reads nothing of the answer, so the loop
// still retries 403, 413 and 422 blind.
func (c *tokenClient) headerFromParam(url, contentType string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequest(http.MethodPost, url, nil)
		if err != nil {
			return nil, err
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode < 400 { // want `retry decision retries 403 \(forbidden\), 413 \(payload too large\), 422 \(unprocessable\): the same request fails the same way on each of 5 attempts`
			return resp, nil
		}
		resp.Body.Close()
		if resp.StatusCode > 401 && resp.StatusCode != 404 {
			time.Sleep(time.Second)
			continue
		}
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil, errors.New("too many retries")
}

// headerFromAnswer: the same loop retrying only when the answer's error
// header says the failure is one a second try can fix: the retry reads
// what failed. Quiet.
func (c *tokenClient) headerFromAnswer(url, contentType string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequest(http.MethodPost, url, nil)
		if err != nil {
			return nil, err
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		resp.Body.Close()
		if reason := resp.Header.Get("X-Error-Reason"); resp.StatusCode > 401 && resp.StatusCode != 404 && reason == "transient" {
			time.Sleep(time.Second)
			continue
		}
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil, errors.New("too many retries")
}

var transientSet = map[int]struct{}{400: {}, 413: {}, 500: {}, 502: {}, 503: {}}

var serverSet = map[int]struct{}{429: {}, 500: {}, 502: {}, 503: {}, 504: {}}

// sendErrBeside: the send's error and the status tested together. A send
// that failed has no status, so its retry says nothing about 401 or 504:
// the loop retries 400 and 413 of the codes the set holds, and misses 504.
func sendErrBeside(hc *http.Client, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := hc.Get(url)
		if err == nil && resp.StatusCode < 400 { // want `retry decision retries 400 \(bad request\), 413 \(payload too large\): the same request fails the same way on each of 4 attempts`
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			if _, ok := transientSet[resp.StatusCode]; !ok { // want `retry decision lists 5xx codes 500, 502, 503: 504 is not retried`
				return nil, fmt.Errorf("status %d", resp.StatusCode)
			}
			lastErr = fmt.Errorf("status %d", resp.StatusCode)
		} else {
			lastErr = err
		}
		time.Sleep(time.Second)
	}
	return nil, lastErr
}

// sendErrBesideServer: the same loop over a set of 429 and every 5xx it
// names. Quiet: no permanent code goes round, whatever the send errors do.
func sendErrBesideServer(hc *http.Client, url string) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 4; attempt++ {
		resp, err := hc.Get(url)
		if err == nil && resp.StatusCode < 400 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			if _, ok := serverSet[resp.StatusCode]; !ok {
				return nil, fmt.Errorf("status %d", resp.StatusCode)
			}
			lastErr = fmt.Errorf("status %d", resp.StatusCode)
		} else {
			lastErr = err
		}
		time.Sleep(time.Second)
	}
	return nil, lastErr
}

// notFoundOnPut: 404 retried only for an upload, a split by the kind of
// request after the status is known (a WebDAV server that has not yet made
// the parent directory). A choice, not a blind retry: quiet.
func (c *tokenClient) notFoundOnPut(method, url string) (*http.Response, error) {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			if method != http.MethodPut {
				return nil, errors.New("not found")
			}
		} else if resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode < 500 {
			return nil, fmt.Errorf("status %d", resp.StatusCode)
		}
		time.Sleep(time.Second)
	}
	return nil, errors.New("too many retries")
}
