package predhelper

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CodesTransport retries the codes its user lists ("429", "5xx"): whether a
// code is retried is only known at run time, but the loop leaves on the
// helper's no and goes round on its yes, so it is a retry of the codes it
// names, and its sleep ignores the request's context.
type CodesTransport struct {
	Next       http.RoundTripper
	Retries    int
	RetryCodes []string
}

func (t *CodesTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for n := 0; n <= t.Retries; n++ {
		if n != 0 {
			time.Sleep(time.Duration(n) * time.Second) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after req.Context\(\) is done`
		}
		resp, err = t.Next.RoundTrip(req)
		if err != nil {
			continue
		}
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			continue
		}
		retry, err := listed(resp.StatusCode, t.RetryCodes)
		if err != nil {
			return resp, err
		}
		if !retry {
			break
		}
	}
	return resp, err
}

// listed matches a code against patterns such as "503" and "5xx".
func listed(code int, patterns []string) (bool, error) {
	if len(patterns) == 0 {
		patterns = []string{"429", "5xx"}
	}
	s := strconv.Itoa(code)
	for _, p := range patterns {
		if len(p) != 3 {
			return false, fmt.Errorf("bad pattern %q", p)
		}
		if p == s || strings.HasSuffix(p, "xx") && p[0] == s[0] {
			return true, nil
		}
	}
	return false, nil
}

type job struct{ State string }

// Watch waits for a job whose state a helper judges by a configured list:
// the helper is handed a field of the body, not a status code, so the loop
// is a poll of the job and not a retry (quiet).
func (t *CodesTransport) Watch(req *http.Request, read func(*http.Response) (job, error), pending []string) (job, error) {
	for {
		resp, err := t.Next.RoundTrip(req)
		if err != nil {
			return job{}, err
		}
		j, err := read(resp)
		if err != nil {
			return job{}, err
		}
		more, err := listedState(j.State, pending)
		if err != nil {
			return j, err
		}
		if !more {
			return j, nil
		}
		time.Sleep(5 * time.Second)
	}
}

func listedState(state string, pending []string) (bool, error) {
	for _, p := range pending {
		if strings.EqualFold(p, state) {
			return true, nil
		}
	}
	return false, nil
}
