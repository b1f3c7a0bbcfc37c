package shapes

import (
	"context"
	"errors"
	"io"
	"log"
	"time"
)

// Lookalikes of the shapes in decisions.go, waits.go, incident.go and
// attempts.go: the same syntax (a tagless switch, an else-if chain, a
// switch on errors.Is, a wait helper, a deadline helper, a (T, bool)
// operation), in loops that do not go round again after a failure.

type listPage struct {
	items []string
	next  string
}

func listFrom(ctx context.Context, token string) (*listPage, error) {
	if _, err := do(ctx); err != nil {
		return nil, err
	}
	return &listPage{}, nil
}

// A tagless switch in pagination: an error leaves, a page goes round.
func pagesSwitch(ctx context.Context) ([]string, error) {
	var all []string
	token := ""
	for {
		p, err := listFrom(ctx, token)
		switch {
		case err != nil:
			return nil, err
		case p.next == "":
			return append(all, p.items...), nil
		}
		all = append(all, p.items...)
		token = p.next
	}
}

type jobState struct{ state string }

func jobStatus(ctx context.Context, id string) (*jobState, error) {
	if _, err := do(ctx); err != nil {
		return nil, err
	}
	return &jobState{state: "running"}, nil
}

// An else-if chain in a poll: an error leaves, "running" goes round.
func pollElseIf(ctx context.Context, id string) error {
	for {
		st, err := jobStatus(ctx, id)
		if err != nil {
			return err
		} else if st.state == "running" {
			time.Sleep(2 * time.Second)
			continue
		} else {
			return nil
		}
	}
}

type message struct{ body string }

func recv(ctx context.Context) (*message, error) {
	if _, err := do(ctx); err != nil {
		return nil, err
	}
	return &message{}, nil
}

// A switch on errors.Is / errors.As in a receive loop: every error leaves,
// each message goes round.
func receiveSwitch(ctx context.Context, handle func(*message)) error {
	for {
		msg, err := recv(ctx)
		var te *tempError
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.As(err, &te):
			return err
		case err != nil:
			return err
		}
		handle(msg)
		time.Sleep(100 * time.Millisecond)
	}
}

func send(ctx context.Context, item string) error {
	_, err := do(ctx)
	return err
}

// The wait helper of waitInHelper as a pause between the items of a batch:
// an error leaves, so nothing is retried.
func batchPause(ctx context.Context, items []string) error {
	for i, it := range items {
		if err := send(ctx, it); err != nil {
			return err
		}
		pause(i)
	}
	return nil
}

// The deadline helper of incident only logged: the loop waits whatever it
// answers, so the retry has no guard.
func loggedRoom(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ { // want `retry loop: attempts=3 waits=7s,11s jitter=no deadline=yes cancellable=yes retryafter=\w+$`
		if _, err = call(ctx, "primary"); err == nil {
			return nil
		}
		wait := backoff(attempt)
		if !roomFor(ctx, wait+reserve) {
			log.Printf("retrying with less than %v left", wait+reserve)
		}
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
	return err
}

// A (T, bool) operation over keys: each turn asks for another key, no
// wait between them (a fallback chain, not a retry).
func firstCached(ctx context.Context, c *cache, keys []string) (string, bool) {
	for _, k := range keys { // want `fallback`
		if v, ok := c.lookup(ctx, k); ok {
			return v, true
		}
	}
	return "", false
}

// rowsCount is the inner loop of iterator alone: Next false is the end of
// the rows, not a failure to retry.
func rowsCount(ctx context.Context) (int, error) {
	r := query(ctx)
	n := 0
	for r.Next() {
		n++
	}
	return n, r.Err()
}
