// Package notify holds status classifiers shaped like alertmanager's
// notify.Retrier: Check returns (retry, err), true for 5xx and the codes
// configured, its error made by github.com/pkg/errors as alertmanager's
// is; Accepted returns (ok, err), true on success.
package notify

import (
	"fmt"
	"io"

	"github.com/pkg/errors"
)

// Retrier decides whether a failed notification is sent again.
type Retrier struct {
	RetryCodes []int // further codes to retry, from the configuration
}

// Check returns whether the request should be retried, and the error of a
// request that failed.
func (r *Retrier) Check(statusCode int, body io.Reader) (bool, error) { // want Check:`status classifier: true for 400,.*,599; lists ; error when true`
	if statusCode/100 == 2 {
		return false, nil
	}
	retry := statusCode/100 == 5
	if !retry {
		for _, code := range r.RetryCodes {
			if code == statusCode {
				retry = true
				break
			}
		}
	}
	s := fmt.Sprintf("unexpected status code %v", statusCode)
	if body != nil {
		if b, _ := io.ReadAll(body); len(b) > 0 {
			s += ": " + string(b)
		}
	}
	return retry, errors.New(s)
}

// Accepted returns true on success; its failure verdict is false.
func Accepted(statusCode int) (bool, error) { // want Accepted:`status classifier: true for ; lists $`
	if statusCode/100 == 2 {
		return true, nil
	}
	return false, fmt.Errorf("unexpected status code %d", statusCode)
}
