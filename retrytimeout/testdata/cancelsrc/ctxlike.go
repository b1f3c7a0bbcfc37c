package cancelsrc

import (
	"net/http"
	"time"

	"example.com/t/cancelsrc/jobs"
)

// quit is this package's own stop signal: Done and Err, like a context.
type quit struct {
	ch chan struct{}
}

func (q *quit) Done() <-chan struct{} { return q.ch }

func (q *quit) Err() error {
	select {
	case <-q.ch:
		return errStopped
	default:
		return nil
	}
}

var errStopped = errStatus

// Poller holds the stop signal its owner closes.
type Poller struct {
	hc   *http.Client
	url  string
	stop *quit
}

func NewPoller(hc *http.Client, url string) *Poller {
	return &Poller{hc: hc, url: url, stop: &quit{ch: make(chan struct{})}}
}

// Stop ends the poller's waits.
func (p *Poller) Stop() { close(p.stop.ch) }

// Fetch sleeps through a stop.
func (p *Poller) Fetch() (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := p.hc.Get(p.url)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after p.stop is done; the retry is also attempt-only: retry loop makes 5 attempts.*; wait in a select on p.stop.Done\(\) and a timer`
	}
	return nil, lastErr
}

// FetchStoppable waits in a select on the stop signal: quiet.
func (p *Poller) FetchStoppable() (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ { // want `attempt-only retry: retry loop makes 5 attempts`
		resp, err := p.hc.Get(p.url)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		select {
		case <-p.stop.Done():
			return nil, p.stop.Err()
		case <-time.After(jittered(attempt)):
		}
	}
	return nil, lastErr
}

// Upload is handed another package's job, whose Context() is its caller's.
func Upload(hc *http.Client, job *jobs.Job, url string) error {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		req, err := http.NewRequestWithContext(job.Context(), http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after job.Context\(\) is done; the retry is also attempt-only: retry loop makes 5 attempts.*; wait in a select on job.Context\(\).Done\(\) and a timer`
	}
	return lastErr
}

// UploadDetached is handed a job whose context is never done: quiet.
func UploadDetached(hc *http.Client, job *jobs.Detached, url string) error {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		req, err := http.NewRequestWithContext(job.Context(), http.MethodPost, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		time.Sleep(jittered(attempt))
	}
	return lastErr
}

// Drain is handed another package's stop signal and sleeps through it.
func Drain(hc *http.Client, stop *jobs.Stop, url string) error {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		resp, err := hc.Get(url)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after stop is done; the retry is also attempt-only: retry loop makes 5 attempts.*; wait in a select on stop.Done\(\) and a timer`
	}
	return lastErr
}

// DrainStoppable selects on it: quiet.
func DrainStoppable(hc *http.Client, stop *jobs.Stop, url string) error {
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ { // want `attempt-only retry: retry loop makes 5 attempts`
		resp, err := hc.Get(url)
		if err == nil && resp.StatusCode < 500 {
			resp.Body.Close()
			return nil
		}
		if err == nil {
			resp.Body.Close()
			err = errStatus
		}
		lastErr = err
		select {
		case <-stop.Done():
			return stop.Err()
		case <-time.After(jittered(attempt)):
		}
	}
	return lastErr
}
