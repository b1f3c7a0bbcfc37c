package transporterr

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

type apiErr struct {
	Code string `json:"code"`
}

func (e apiErr) Error() string { return e.Code }

func errorIn(body []byte) error {
	var w struct {
		Error apiErr `json:"error"`
	}
	if json.Unmarshal(body, &w) != nil || w.Error.Code == "" {
		return nil
	}
	return w.Error
}

func again(err error) bool {
	var e apiErr
	return errors.As(err, &e) && (e.Code == "rate_limited" || e.Code == "locked")
}

// Coded goes round only when the error in the body names a class worth
// another attempt, whatever the 4xx or 5xx status it came with: it
// retries that class, not a list of server errors, and giving up on a
// refused connection is the same choice. Quiet.
func Coded(ctx context.Context, hc *http.Client, url string) error {
	for i := 0; i < 5; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode >= 400 && resp.StatusCode <= 599 {
			if err := errorIn(body); err != nil && again(err) {
				if err := pause(ctx, i); err != nil {
					return err
				}
				continue
			}
			return errors.New("request failed")
		}
		return nil
	}
	return errors.New("gave up")
}
