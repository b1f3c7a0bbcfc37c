package shapes

import (
	"context"
	"errors"
	"net/http"
	"time"
)

var errBusy = errors.New("busy")

type tempError struct{ after time.Duration }

func (e *tempError) Error() string { return "temporary" }

func do(ctx context.Context) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example.com/v1", nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

// The decision in a tagless switch.
func taglessSwitch(ctx context.Context) error {
	for i := 0; i < 3; i++ { // want `retry loop: attempts=3 waits=1s,1s jitter=no deadline=no cancellable=no retryafter=no`
		resp, err := do(ctx)
		switch {
		case err == nil:
			resp.Body.Close()
			return nil
		case errors.Is(err, context.Canceled):
			return err
		}
		time.Sleep(time.Second)
	}
	return errBusy
}

// The decision in an else-if chain.
func elseIfChain(ctx context.Context) error {
	var err error
	for i := 0; i < 4; i++ { // want `retry loop: attempts=4 waits=2s,2s,2s jitter=no deadline=no cancellable=no retryafter=no`
		var resp *http.Response
		resp, err = do(ctx)
		if err != nil && errors.Is(err, context.Canceled) {
			return err
		} else if err != nil {
			time.Sleep(2 * time.Second)
			continue
		} else {
			resp.Body.Close()
			return nil
		}
	}
	return err
}

// A switch on errors.Is / errors.As.
func switchOnIs(ctx context.Context) error {
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=500ms,500ms jitter=no deadline=no cancellable=no retryafter=no`
		resp, err := do(ctx)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		var te *tempError
		switch {
		case errors.As(err, &te):
		case errors.Is(err, errBusy):
		default:
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
	return errBusy
}

// A loop whose only failure exit is a helper classifier.
func shouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		return !errors.Is(err, context.Canceled)
	}
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
}

func helperClassifier(ctx context.Context) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 0; attempt < 5; attempt++ { // want `retry loop: attempts=5 waits=1s,2s,4s,8s jitter=no deadline=no cancellable=no retryafter=no`
		resp, err = do(ctx)
		if !shouldRetry(resp, err) {
			break
		}
		time.Sleep(time.Second << attempt)
	}
	return resp, err
}

// A classifier of the response alone, after the send's error has returned:
// true for a response to retry (false for a success), or true for a
// success, negated.
func retryableStatus(resp *http.Response) bool {
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
}

func answered(resp *http.Response) bool { return resp.StatusCode < 300 }

func statusHelper(ctx context.Context) (*http.Response, error) {
	for attempt := 0; attempt < 4; attempt++ { // want `retry loop: attempts=4 waits=1s,1s,1s jitter=no deadline=no cancellable=no retryafter=no`
		resp, err := do(ctx)
		if err != nil {
			return nil, err
		}
		if retryableStatus(resp) {
			resp.Body.Close()
			time.Sleep(time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errBusy
}

func negatedHelper(ctx context.Context) (*http.Response, error) {
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=2s,2s jitter=no deadline=no cancellable=no retryafter=no`
		resp, err := do(ctx)
		if err != nil {
			return nil, err
		}
		if !answered(resp) {
			resp.Body.Close()
			time.Sleep(2 * time.Second)
			continue
		}
		return resp, nil
	}
	return nil, errBusy
}

type job struct{ State string }

func fetchJob(ctx context.Context) (*job, error) { return &job{}, nil }

func finished(j *job) bool { return j.State == "done" }

// Quiet: a poll until the job is done, through a helper of its state.
func pollHelper(ctx context.Context) (*job, error) {
	for {
		j, err := fetchJob(ctx)
		if err != nil {
			return nil, err
		}
		if !finished(j) {
			time.Sleep(time.Second)
			continue
		}
		return j, nil
	}
}
