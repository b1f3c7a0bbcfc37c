// Package bounded: a function puts a deadline on ctx for one call and, when
// that call fails, records the failure on the same ctx. When the failure
// was the deadline, the record fails at once. No test of
// context.DeadlineExceeded anywhere: the code records every failure.
package bounded

import (
	"context"
	"database/sql"
	"errors"
	"log"
	"time"

	"github.com/redis/go-redis/v9"
)

// Job is the queue's view of a work item (its implementation is elsewhere).
type Job interface {
	Requeue(ctx context.Context) error
	Finish(ctx context.Context, state string) error
	ID() int64
}

// Provider starts machines (a remote API, slow at times).
type Provider interface {
	Start(ctx context.Context, image string) (string, error)
}

type Step struct {
	provider     Provider
	db           *sql.DB
	rdb          *redis.Client
	startTimeout time.Duration
}

// The shape of travis-ci/worker's step_start_instance (fixed in 0fa9e0f).
func (s *Step) startInstance(ctx context.Context, job Job) error { // want startInstance:"publish with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout)
	defer cancel()

	_, err := s.provider.Start(ctx, "ubuntu")
	if err != nil {
		log.Printf("couldn't start instance: %v", err)
		if err := job.Requeue(ctx); err != nil { // want `publish uses ctx after s.provider.Start failed on it: when that call ran out of the deadline set at bounded/bounded.go:38, job.Requeue fails at once and the message is never sent; run it on context.WithoutCancel\(ctx\) with its own timeout`
			log.Printf("couldn't requeue job: %v", err)
		}
		return err
	}
	return nil
}

// A constant timeout, the error in the if's init, a SQL status write.
func (s *Step) runScript(parent context.Context, id int64) { // want runScript:"write with ctx param 0"
	ctx, cancel := context.WithTimeout(parent, 30*time.Second)
	defer cancel()
	if _, err := s.provider.Start(ctx, "script"); err != nil {
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", id) // want `write uses ctx after s.provider.Start failed on it: when that call ran out of the deadline of 30s set at bounded/bounded.go:54, s.db.ExecContext fails at once`
	}
}

// A redis write on a child of the deadline context is on it too.
func (s *Step) release(parent context.Context, key string) { // want release:"delete with ctx param 0"
	ctx, cancel := context.WithDeadline(parent, time.Now().Add(time.Minute))
	defer cancel()
	if _, err := s.provider.Start(ctx, "x"); err != nil {
		cctx := context.WithValue(ctx, key, 1)
		s.rdb.Del(cctx, key) // want `delete uses cctx after s.provider.Start failed on it`
	}
}

// Quiet: the write runs on the caller's context, which the deadline does
// not bound (the maintainers' fix: a context of its own for the slow call).
func (s *Step) parentWrite(ctx context.Context, job Job) error { // want parentWrite:"publish with ctx param 0"
	startCtx, cancel := context.WithTimeout(ctx, s.startTimeout)
	defer cancel()
	if _, err := s.provider.Start(startCtx, "ubuntu"); err != nil {
		return job.Requeue(ctx)
	}
	return nil
}

// Quiet: the write is detached with its own timeout.
func (s *Step) detached(ctx context.Context, job Job) error {
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout)
	defer cancel()
	if _, err := s.provider.Start(ctx, "ubuntu"); err != nil {
		wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer wcancel()
		return job.Requeue(wctx)
	}
	return nil
}

// Quiet: the success path writes on ctx, which has time left.
func (s *Step) success(ctx context.Context, job Job) error { // want success:"status write with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout)
	defer cancel()
	if _, err := s.provider.Start(ctx, "ubuntu"); err != nil {
		return err
	}
	return job.Finish(ctx, "passed")
}

// Quiet: the failure is logged and counted, not written.
func (s *Step) logOnly(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout)
	defer cancel()
	if _, err := s.provider.Start(ctx, "ubuntu"); err != nil {
		log.Printf("start: %v", err)
	}
}

// Quiet: the call that failed was not given ctx, so ctx's deadline did not
// end it.
func (s *Step) notGiven(ctx context.Context, job Job, f func() error) error { // want notGiven:"publish with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout)
	defer cancel()
	if err := f(); err != nil {
		return job.Requeue(ctx)
	}
	return nil
}

// Quiet: the bounded call is itself a write to the store the status goes
// to: when the store is too slow for one, it is for the other.
func (s *Step) storeTwice(ctx context.Context, id int64) { // want storeTwice:"write with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := s.db.ExecContext(ctx, "UPDATE jobs SET owner = 'me' WHERE id = $1", id); err != nil {
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", id)
	}
}

// A later call under a function-wide deadline: whichever call uses up the
// time, the write after it fails (crossplane-runtime's managed reconciler,
// fixed in 1bccacf by giving the external calls a shorter deadline of their
// own). The read's own failure returns without a write.
func (s *Step) later(ctx context.Context, job Job, id int64) error { // want later:"publish with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, "SELECT n FROM jobs WHERE id = $1", id)
	if err != nil {
		return err
	}
	rows.Close()
	if _, err := s.provider.Start(ctx, "ubuntu"); err != nil {
		return job.Requeue(ctx) // want `publish uses ctx after s.provider.Start failed on it: when that call ran out of the deadline of 60s set at bounded/bounded.go:139`
	}
	return nil
}

// Quiet: the failing call and the write go to the same store (the
// repository's Claim writes through database/sql too).
func (s *Step) sameStore(ctx context.Context, r *repo, id int64) { // want sameStore:"write with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := r.claim(ctx, id); err != nil {
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", id)
	}
}

type repo struct{ db *sql.DB }

func (r *repo) claim(ctx context.Context, id int64) error { // want claim:"write with ctx param 0"
	_, err := r.db.ExecContext(ctx, "UPDATE jobs SET owner = 'me' WHERE id = $1", id)
	return err
}

// Quiet: the call on ctx's client fails and the write goes to the same
// client (one backend).
func (s *Step) sameClient(ctx context.Context, key string) { // want sameClient:"delete with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := s.rdb.Get(ctx, key).Err(); err != nil {
		s.rdb.Del(ctx, key)
	}
}

// Quiet: a poll loop whose per-turn deadline ends one turn; the failure is
// retried, not recorded.
func (s *Step) poll(ctx context.Context) error {
	for i := 0; i < 5; i++ {
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := s.provider.Start(tctx, "probe")
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return errors.New("not ready")
}

// Already reported by the explicit check (one finding, not two).
func (s *Step) explicit(ctx context.Context, job Job) error { // want explicit:"publish with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout)
	defer cancel()
	_, err := s.provider.Start(ctx, "ubuntu")
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return job.Requeue(ctx) // want `publish uses ctx after it expired \(checked at bounded/bounded.go:200\)`
		}
		return err
	}
	return nil
}
