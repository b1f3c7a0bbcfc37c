package loops

import (
	"net/http"
	"time"
)

// A poll for a pollJob's state whose error result is the package's own error
// interface: a failure ends it at once (a test nested in the branch that
// returns marks a code first), and only "not finished yet" goes round. No
// retry: the failure never goes round.

type pollFault interface {
	error
	Is(code int) bool
}

type pollJob interface {
	Finished() (bool, pollFault)
}

type pollCodeFault struct{ code int }

func (f *pollCodeFault) Error() string    { return "pollFault" }
func (f *pollCodeFault) Is(code int) bool { return f.code == code }

type pollHTTPJob struct{ url string }

func (j *pollHTTPJob) Finished() (bool, pollFault) {
	resp, err := http.Get(j.url)
	if err != nil {
		return false, &pollCodeFault{code: 1}
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK, nil
}

func awaitJob(j pollJob, out chan<- pollFault) {
	interval := 100 * time.Millisecond
	for {
		time.Sleep(interval)
		done, err := j.Finished()
		if err != nil {
			if err.Is(9) {
				interval = 0
			}
			out <- err
			return
		} else if done {
			out <- nil
			return
		}
		interval *= 2
	}
}

// fetchJob retries through the same error interface: its failure goes
// round, so it is a retry, with the pollFault as its error.
func fetchJob(j pollJob) (bool, pollFault) {
	var last pollFault
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 .*`
		done, err := j.Finished()
		if err == nil {
			return done, nil
		}
		last = err
		time.Sleep(time.Second)
	}
	return false, last
}
