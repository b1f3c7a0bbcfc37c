// Package repeated holds writes a retry repeats, beside the lookalikes
// that must stay quiet: a write folded by the store, made after the
// retried call, made once, or before a call whose failure is not retried.
package repeated

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	goretry "github.com/sethvargo/go-retry"
)

type Order struct{ ID, Body string }

func charge(ctx context.Context, o Order) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://pay.example.com/charge", strings.NewReader(o.Body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		return errors.New("payment service unavailable")
	}
	return nil
}

// Publisher sends events to the bus.
type Publisher interface {
	Publish(ctx context.Context, topic string, body []byte) error
}

// Store writes orders.
type Store struct{ db *sql.DB }

func (s *Store) saveEvent(ctx context.Context, id string) error { // want saveEvent:"write with ctx param 0 via s.db.ExecContext .* \\(adds\\)"
	_, err := s.db.ExecContext(ctx, "INSERT INTO events (order_id) VALUES ($1)", id)
	return err
}

func (s *Store) markSeen(ctx context.Context, id string) error { // want markSeen:"write with ctx param 0 via s.db.ExecContext at .*\\d$"
	_, err := s.db.ExecContext(ctx, "UPDATE orders SET seen = true WHERE id = $1", id)
	return err
}

// Place inserts the order on every attempt, before the charge that is
// retried: a charge that fails three times leaves four orders.
func (s *Store) Place(ctx context.Context, o Order) error { // want Place:"write with ctx param 0 via s\\.db\\.ExecContext at .* \\(adds\\)$"
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if _, err = s.db.ExecContext(ctx, "INSERT INTO orders (id, body) VALUES ($1, $2)", o.ID, o.Body); err != nil { // want `s.db.ExecContext \(write\) runs before charge on every attempt of the retry loop at repeated/repeated.go:\d+: when charge fails after it, the retry makes it again, up to 4 times per call`
			return err
		}
		if err = charge(ctx, o); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return err
}

// Announce publishes before the call the library retries.
func Announce(ctx context.Context, pub Publisher, o Order) error { // want Announce:"publish with ctx param 0 via pub\\.Publish at .* \\(adds\\)$"
	return backoff.Retry(func() error {
		if err := pub.Publish(ctx, "orders", []byte(o.ID)); err != nil { // want `pub.Publish \(publish\) runs before charge on every attempt of the backoff.Retry at .*: when charge fails after it, the retry makes it again, up to 11 times per call`
			return err
		}
		return charge(ctx, o)
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 10), ctx))
}

// Record goes through a helper that inserts.
func (s *Store) Record(ctx context.Context, o Order) error { // want Record:"write with ctx param 0 via s\\.saveEvent at .* \\(adds\\)$"
	return retry.Do(func() error {
		if err := s.saveEvent(ctx, o.ID); err != nil { // want `s.saveEvent \(writes through s.db.ExecContext at repeated/repeated.go:\d+\) \(write\) runs before charge on every attempt of the retry.Do at .*, up to 3 times per call`
			return err
		}
		err := charge(ctx, o)
		return err
	}, retry.Attempts(3), retry.Context(ctx))
}

// Quiet: the store folds a repeat into the row already there.
func (s *Store) PlaceUpsert(ctx context.Context, o Order) error { // want PlaceUpsert:"write with ctx param 0 via s\\.db\\.ExecContext at .*\\d$"
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if _, err = s.db.ExecContext(ctx, "INSERT INTO orders (id, body) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING", o.ID, o.Body); err != nil {
			return err
		}
		if err = charge(ctx, o); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return err
}

// Quiet: the write is made once the retried call has succeeded.
func (s *Store) PlaceAfter(ctx context.Context, o Order) error { // want PlaceAfter:"write with ctx param 0 via s\\.db\\.ExecContext at .* \\(adds\\)$"
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if err = charge(ctx, o); err != nil {
			time.Sleep(time.Duration(attempt+1) * time.Second)
			continue
		}
		_, err = s.db.ExecContext(ctx, "INSERT INTO orders (id, body) VALUES ($1, $2)", o.ID, o.Body)
		return err
	}
	return err
}

// Quiet: only the first attempt writes.
func (s *Store) PlaceOnce(ctx context.Context, o Order) error { // want PlaceOnce:"write with ctx param 0 via s\\.db\\.ExecContext at .* \\(adds\\)$"
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if attempt == 0 {
			if _, err = s.db.ExecContext(ctx, "INSERT INTO orders (id, body) VALUES ($1, $2)", o.ID, o.Body); err != nil {
				return err
			}
		}
		if err = charge(ctx, o); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return err
}

// Quiet: an update made twice leaves what one leaves.
func (s *Store) PlaceSeen(ctx context.Context, o Order) error { // want PlaceSeen:"write with ctx param 0 via s\\.markSeen at .*\\d$"
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if err = s.markSeen(ctx, o.ID); err != nil {
			return err
		}
		if err = charge(ctx, o); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return err
}

// Quiet: what is retried is the insert; the call after it returns its
// failure, so a row written is never written again.
func (s *Store) PlaceThenCharge(ctx context.Context, o Order) error { // want PlaceThenCharge:"write with ctx param 0 via s\\.db\\.ExecContext at .* \\(adds\\)$"
	for attempt := 0; attempt < 4; attempt++ {
		if _, err := s.db.ExecContext(ctx, "INSERT INTO orders (id, body) VALUES ($1, $2)", o.ID, o.Body); err != nil {
			time.Sleep(time.Second)
			continue
		}
		if err := charge(ctx, o); err != nil {
			return err
		}
		return nil
	}
	return errors.New("gave up")
}

// Quiet: the charge's failure is marked permanent; backoff stops on it.
func AnnouncePermanent(ctx context.Context, pub Publisher, o Order) error { // want AnnouncePermanent:"publish with ctx param 0 via pub\\.Publish at .* \\(adds\\)$"
	return backoff.Retry(func() error {
		if err := pub.Publish(ctx, "orders", []byte(o.ID)); err != nil {
			return err
		}
		if err := charge(ctx, o); err != nil {
			return backoff.Permanent(err)
		}
		return nil
	}, backoff.WithContext(backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 10), ctx))
}

// Quiet: go-retry retries only what is marked retryable; the charge's
// failure is returned as it is and stops the retry.
func AnnounceGoRetry(ctx context.Context, pub Publisher, o Order) error {
	b := goretry.WithMaxRetries(3, goretry.NewExponential(time.Second))
	return goretry.Do(ctx, b, func(ctx context.Context) error {
		if err := pub.Publish(ctx, "orders", []byte(o.ID)); err != nil {
			return goretry.RetryableError(err)
		}
		return charge(ctx, o)
	})
}

// Quiet: a page loop writes each page once; it is no retry.
func (s *Store) CopyPages(ctx context.Context, pages []Order) error { // want CopyPages:"write with ctx param 0 via s\\.db\\.ExecContext at .* \\(adds\\)$"
	for _, p := range pages {
		if _, err := s.db.ExecContext(ctx, "INSERT INTO orders (id, body) VALUES ($1, $2)", p.ID, p.Body); err != nil {
			return err
		}
		if err := charge(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// PlaceBreak inserts before a charge whose success breaks out of the loop;
// the fix moves the insert into that branch, as in Place.
func (s *Store) PlaceBreak(ctx context.Context, o Order) error { // want PlaceBreak:"write with ctx param 0 via s\\.db\\.ExecContext at .* \\(adds\\)$"
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		_, err = s.db.ExecContext(ctx, "INSERT INTO orders (id, body) VALUES ($1, $2)", o.ID, o.Body) // want `s.db.ExecContext \(write\) runs before charge on every attempt of the retry loop at repeated/repeated.go:\d+: when charge fails after it, the retry makes it again, up to 3 times per call`
		err = charge(ctx, o)
		if err == nil {
			break
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return err
}

// PlaceFeeds inserts a row whose id the charge needs: the write feeds the
// retried call, so moving it is no mechanical edit; reported with no fix.
func (s *Store) PlaceFeeds(ctx context.Context, o Order) error { // want PlaceFeeds:"write with ctx param 0 via s\\.db\\.ExecContext at .* \\(adds\\)$"
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		res, err := s.db.ExecContext(ctx, "INSERT INTO orders (body) VALUES ($1)", o.Body) // want `s.db.ExecContext \(write\) runs before charge on every attempt of the retry loop at repeated/repeated.go:\d+: when charge fails after it, the retry makes it again, up to 4 times per call`
		if err != nil {
			return err
		}
		id, _ := res.LastInsertId()
		if err = charge(ctx, Order{ID: fmt.Sprint(id), Body: o.Body}); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return err
}
