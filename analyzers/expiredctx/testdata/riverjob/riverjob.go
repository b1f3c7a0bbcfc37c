// Package riverjob: river workers, whose context river gives its
// JobTimeout (one minute by default), record a failure on that context.
package riverjob

import (
	"context"
	"database/sql"
	"net/http"
	"time"

	"github.com/riverqueue/river"
)

// ChargeArgs are a charge job's arguments.
type ChargeArgs struct{ ID int64 }

func (ChargeArgs) Kind() string { return "charge" }

// ChargeWorker charges and records the outcome.
type ChargeWorker struct {
	river.WorkerDefaults[ChargeArgs]
	db *sql.DB
	hc *http.Client
}

func (w *ChargeWorker) charge(ctx context.Context, id int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://psp.example/charge", nil)
	if err != nil {
		return err
	}
	resp, err := w.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func (w *ChargeWorker) Work(ctx context.Context, job *river.Job[ChargeArgs]) error {
	if err := w.charge(ctx, job.Args.ID); err != nil {
		w.db.ExecContext(ctx, "UPDATE charges SET state = 'failed' WHERE id = $1", job.Args.ID) // want `write uses ctx after w.charge failed on it: when that call ran out of the deadline set by river's JobTimeout \(1m unless the client's config sets another\), w.db.ExecContext fails at once`
		return err
	}
	return nil
}

// SlowArgs are a slow job's arguments.
type SlowArgs struct{ ID int64 }

func (SlowArgs) Kind() string { return "slow" }

// SlowWorker sets its own timeout.
type SlowWorker struct {
	river.WorkerDefaults[SlowArgs]
	db *sql.DB
	hc *http.Client
}

func (w *SlowWorker) Timeout(*river.Job[SlowArgs]) time.Duration { return 5 * time.Minute }

func (w *SlowWorker) Work(ctx context.Context, job *river.Job[SlowArgs]) error {
	if err := fetch(ctx, w.hc, "https://slow.example"); err != nil {
		w.db.ExecContext(ctx, "UPDATE slow SET state = 'failed' WHERE id = $1", job.Args.ID) // want `when that call ran out of the deadline of 300s set by the worker's Timeout method`
		return err
	}
	return nil
}

func fetch(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// ForeverArgs are a job with no timeout.
type ForeverArgs struct{ ID int64 }

func (ForeverArgs) Kind() string { return "forever" }

// ForeverWorker turns the timeout off: quiet.
type ForeverWorker struct {
	river.WorkerDefaults[ForeverArgs]
	db *sql.DB
	hc *http.Client
}

func (w *ForeverWorker) Timeout(*river.Job[ForeverArgs]) time.Duration { return -1 }

func (w *ForeverWorker) Work(ctx context.Context, job *river.Job[ForeverArgs]) error {
	if err := fetch(ctx, w.hc, "https://slow.example"); err != nil {
		w.db.ExecContext(ctx, "UPDATE forever SET state = 'failed' WHERE id = $1", job.Args.ID)
		return err
	}
	return nil
}

// DetachedWorker records the failure on a context of its own: quiet.
type DetachedWorker struct {
	river.WorkerDefaults[ChargeArgs]
	db *sql.DB
	hc *http.Client
}

func (w *DetachedWorker) Work(ctx context.Context, job *river.Job[ChargeArgs]) error {
	if err := fetch(ctx, w.hc, "https://psp.example"); err != nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		w.db.ExecContext(wctx, "UPDATE charges SET state = 'failed' WHERE id = $1", job.Args.ID)
		return err
	}
	return nil
}

// ThumbArgs are a thumbnail job's arguments.
type ThumbArgs struct {
	ID  int64
	PDF bool
}

func (ThumbArgs) Kind() string { return "thumb" }

// ThumbWorker renders through one of two steps of its own, each uploading
// on ctx, and records a failure with a step of its own too: the steps are
// the worker's methods, not one client, so the write is not quiet for
// sharing their receiver.
type ThumbWorker struct {
	river.WorkerDefaults[ThumbArgs]
	db *sql.DB
	hc *http.Client
}

func (w *ThumbWorker) renderPDF(ctx context.Context, id int64) (string, error) {
	return "pdf", fetch(ctx, w.hc, "https://store.example/pdf")
}

func (w *ThumbWorker) renderImage(ctx context.Context, id int64) (string, error) {
	return "img", fetch(ctx, w.hc, "https://store.example/img")
}

func (w *ThumbWorker) setStatus(ctx context.Context, id int64, status string) error {
	_, err := w.db.ExecContext(ctx, "UPDATE thumbs SET status = $1 WHERE id = $2", status, id)
	return err
}

func (w *ThumbWorker) Work(ctx context.Context, job *river.Job[ThumbArgs]) error {
	var key string
	var err error
	if job.Args.PDF {
		key, err = w.renderPDF(ctx, job.Args.ID)
	} else {
		key, err = w.renderImage(ctx, job.Args.ID)
	}
	if err != nil {
		w.setStatus(ctx, job.Args.ID, "error") // want `status write uses ctx after w.render(PDF|Image) failed on it: when that call ran out of the deadline set by river's JobTimeout`
		return err
	}
	_ = key
	return w.setStatus(ctx, job.Args.ID, "done")
}

// LoadWorker's failing step reads through the same pool its status write
// uses (through another method): one backend, quiet.
type LoadWorker struct {
	river.WorkerDefaults[ThumbArgs]
	db *sql.DB
}

func (w *LoadWorker) load(ctx context.Context, id int64) (string, error) {
	var s string
	err := w.db.QueryRowContext(ctx, "SELECT name FROM thumbs WHERE id = $1", id).Scan(&s)
	return s, err
}

func (w *LoadWorker) exec(ctx context.Context, q string, args ...any) error {
	_, err := w.db.ExecContext(ctx, q, args...)
	return err
}

func (w *LoadWorker) fail(ctx context.Context, id int64) error {
	return w.exec(ctx, "UPDATE thumbs SET status = 'error' WHERE id = $1", id)
}

func (w *LoadWorker) Work(ctx context.Context, job *river.Job[ThumbArgs]) error {
	name, err := w.load(ctx, job.Args.ID)
	if err != nil {
		w.fail(ctx, job.Args.ID)
		return err
	}
	_ = name
	return nil
}
