// Package errtype holds retries that classify the project's own error
// type, taken with errors.As: through a method of the type that tests its
// code field, and through a map of codes in a branch that waits and goes
// round. Beside them, the same shapes over a full set of transient codes
// and a conflict retry stay quiet.
package errtype

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

type StatusError struct {
	Code int
	Body string
}

func (e *StatusError) Error() string { return fmt.Sprintf("status %d: %s", e.Code, e.Body) }

// Transient says which answers are worth another attempt.
func (e *StatusError) Transient() bool { // want Transient:`status classifier: true for 500,503; lists 500,503; home`
	return e.Code == http.StatusInternalServerError || e.Code == http.StatusServiceUnavailable // want `retry decision lists 5xx codes 500, 503: 502 and 504 are not retried; use e.Code >= 500`
}

// Gateway says the same for every transient server error.
func (e *StatusError) Gateway() bool { // want Gateway:`status classifier: true for 500,502,503,504; lists 500,502,503,504; home`
	switch e.Code {
	case 500, 502, 503, 504: // want `retry decision retries 500, 502, 503, 504 but not 429`
		return true
	}
	return false
}

func send(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return &StatusError{Code: resp.StatusCode}
	}
	return nil
}

func pause(ctx context.Context, i int) error {
	t := time.NewTimer(time.Duration(1<<i)*time.Second + time.Duration(time.Now().UnixNano()%int64(time.Second)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ByMethod gives up unless the error is a StatusError whose method says
// it is transient.
func ByMethod(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 5; i++ {
		err = send(ctx, hc, url)
		var se *StatusError
		if !errors.As(err, &se) || !se.Transient() {
			return err
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

var retryOn = map[int]bool{http.StatusBadRequest: true, http.StatusServiceUnavailable: true, http.StatusInternalServerError: true}

// ByMap waits and goes round when the code is in the map, and leaves
// otherwise.
func ByMap(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 5; i++ {
		err = send(ctx, hc, url)
		var se *StatusError
		if errors.As(err, &se) && retryOn[se.Code] { // want `retry decision lists 5xx codes 500, 503: 502 and 504 are not retried; use se.Code >= 500` `retry decision retries 400 \(bad request\): the same request fails the same way on each of 5 attempts; give up on them`
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return err
	}
	return err
}

// ByGateway retries every transient server error: quiet.
func ByGateway(ctx context.Context, hc *http.Client, url string) error { // want ByGateway:`retry loop at errtype/errtype.go:104 gives up on 529`
	var err error
	for i := 0; i < 5; i++ {
		err = send(ctx, hc, url)
		var se *StatusError
		if !errors.As(err, &se) || !se.Gateway() {
			return err
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// OnConflict writes again on 409 only: quiet.
func OnConflict(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 5; i++ {
		err = send(ctx, hc, url)
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusConflict {
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return err
	}
	return err
}

var transientCodes = []int{http.StatusInternalServerError, http.StatusServiceUnavailable}

// in is the package's own contains helper.
func in(set []int, code int) bool {
	for _, c := range set {
		if c == code {
			return true
		}
	}
	return false
}

// ByHelper tests the code through it.
func ByHelper(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 5; i++ {
		err = send(ctx, hc, url)
		var se *StatusError
		if errors.As(err, &se) && in(transientCodes, se.Code) { // want `retry decision lists 5xx codes 500, 503: 502 and 504 are not retried; use se.Code >= 500`
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return err
	}
	return err
}

// above answers whether any element exceeds v: no membership test.
func above(set []int, v int) bool {
	for _, c := range set {
		if c > v {
			return true
		}
	}
	return false
}

// ByAbove is quiet: what the helper answers is not a list of codes.
func ByAbove(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for i := 0; i < 5; i++ {
		err = send(ctx, hc, url)
		var se *StatusError
		if errors.As(err, &se) && above(transientCodes, se.Code) {
			if werr := pause(ctx, i); werr != nil {
				return werr
			}
			continue
		}
		return err
	}
	return err
}
