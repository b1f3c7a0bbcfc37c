package loops

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// A retry that also goes round when reading the response fails: the error
// variable is set last by io.ReadAll(resp.Body), which reads the
// operation's result, so its test is still the operation failing. The
// status test is the "not 2xx" pair (code < 200 || code > 299).
func fetchBody(c *http.Client, req *http.Request) ([]byte, error) {
	var last error
	for attempt := 1; attempt <= 3; attempt++ { // want `retry loop: attempts=3`
		resp, err := c.Do(req.Clone(req.Context()))
		if err != nil {
			last = err
			time.Sleep(time.Second)
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			last = err
			time.Sleep(time.Second)
			continue
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			last = errors.New(resp.Status)
			time.Sleep(time.Second)
			continue
		}
		return body, nil
	}
	return nil, last
}
