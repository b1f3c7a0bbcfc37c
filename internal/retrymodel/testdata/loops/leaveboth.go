package loops

import (
	"encoding/json"
	"net/http"
	"time"
)

// decode is a parser of the project's own: it returns an error.
func decode(raw []byte, s *string) error { return json.Unmarshal(raw, s) }

// A loop whose call leaves on success and whose failure leaves too (a
// fallback value returned) never repeats the call: no retry.

func unquote(data []byte) string {
	for i := 0; i < len(data)-1; i++ {
		if data[i] == '\\' && data[i+1] == 'u' {
			raw := make([]byte, len(data)+2)
			raw[0] = '"'
			copy(raw[1:], data)
			raw[len(raw)-1] = '"'
			var s string
			if err := decode(raw, &s); err == nil {
				return s
			}
			return string(data)
		}
	}
	return string(data)
}

// The same success test with the failure going round after a wait is one.
func getUntilOK(url string) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3`
		var resp *http.Response
		if resp, err = http.Get(url); err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}

// A failure that is only logged after the test still goes round.
func getLogged(url string) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3`
		var resp *http.Response
		if resp, err = http.Get(url); err == nil {
			return resp, nil
		}
		println("retrying", err.Error())
	}
	return nil, err
}

// A failure that leaves at the end of the turn unless a decision on the
// way waits and goes round is still a retry.
func getDecided(url string, retryable func(error) bool) (*http.Response, error) {
	for { // want `retry loop: attempts=unbounded`
		resp, err := http.Get(url)
		if err == nil {
			return resp, nil
		}
		if retryable(err) {
			time.Sleep(time.Second)
			continue
		}
		return nil, err
	}
}

func decide(n int, err error) (bool, time.Duration, error) {
	if n > 3 {
		return false, 0, err
	}
	return true, time.Second << n, nil
}

// The verdict comes from a helper handed the error; the turn ends in a
// return unless it says retry.
func getVerdict(url string) (*http.Response, error) {
	n := 0
	for { // want `retry loop: attempts=`
		n++
		resp, err := http.Get(url)
		if err == nil {
			return resp, nil
		}
		retry, after, rerr := decide(n, err)
		if rerr != nil {
			return nil, rerr
		}
		if retry {
			time.Sleep(after)
			continue
		}
		return nil, err
	}
}
