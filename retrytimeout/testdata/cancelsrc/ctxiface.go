package cancelsrc

import (
	"context"
	"net/http"
	"time"
)

// Ctx is a framework's own request context: an interface that embeds
// context.Context and adds its own methods.
type Ctx interface {
	context.Context
	RequestID() string
}

// Canceller has a context's Done and Err without being one.
type Canceller interface {
	Done() <-chan struct{}
	Err() error
}

// Finisher says when a piece of work is finished: Done alone is no
// caller's cancellation.
type Finisher interface {
	Done() <-chan struct{}
}

// Notify sleeps through a cancel of the framework's context.
func Notify(c Ctx, hc *http.Client, url string) error {
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
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after c is done; the retry is also attempt-only: retry loop makes 5 attempts.*; wait in a select on c.Done\(\) and a timer`
	}
	return lastErr
}

// Ping sleeps through a cancel of a value with a context's Done and Err.
func Ping(c Canceller, hc *http.Client, url string) error {
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
		time.Sleep(jittered(attempt)) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after c is done`
	}
	return lastErr
}

// Report is handed a finisher, whose Done is no cancellation: nothing in
// scope can be done, so its attempt count is its bound. Quiet.
func Report(f Finisher, hc *http.Client, url string) error {
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
		time.Sleep(jittered(attempt))
	}
	return lastErr
}
