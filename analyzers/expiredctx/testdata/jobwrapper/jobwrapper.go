// Package jobwrapper: the deadline is put on the context by the scheduler
// that runs the job, and the outcome is recorded by the function it hands
// the context to. When the job used up the deadline, the record made on
// that context fails at once and the job stays "running".
package jobwrapper

import (
	"context"
	"database/sql"
	"log"
	"time"
)

// Job is a unit of work (its implementations are elsewhere: a slow plug-in point).
type Job interface {
	Run(ctx context.Context) error
	ID() int64
}

type Scheduler struct {
	db      *sql.DB
	timeout time.Duration
}

// runJob gives each run its timeout and hands the work on.
func (s *Scheduler) runJob(parent context.Context, j Job) { // want runJob:"write with ctx param 0 via s.execute"
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	s.execute(ctx, j)
}

// execute is called only by runJob, always on the deadline runJob sets.
func (s *Scheduler) execute(ctx context.Context, j Job) { // want execute:"write with ctx param 0"
	if err := j.Run(ctx); err != nil {
		log.Printf("job %d: %v", j.ID(), err)
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", j.ID()) // want `write uses ctx after j.Run failed on it: when that call ran out of the deadline set by its caller runJob at jobwrapper/jobwrapper.go:27, s.db.ExecContext fails at once`
		return
	}
	s.db.ExecContext(ctx, "UPDATE jobs SET state = 'done' WHERE id = $1", j.ID()) // the success path: fine
}

// Two callers, both with a constant timeout: the deadline is known.
func (s *Scheduler) runNow(j Job) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s.record(ctx, j)
}

func (s *Scheduler) runLater(parent context.Context, j Job) { // want runLater:"write with ctx param 0 via s.record"
	time.Sleep(time.Second)
	ctx, cancel := context.WithTimeout(parent, 30*time.Second)
	defer cancel()
	s.record(ctx, j)
}

func (s *Scheduler) record(ctx context.Context, j Job) { // want record:"write with ctx param 0"
	if err := j.Run(ctx); err != nil {
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", j.ID()) // want `write uses ctx after j.Run failed on it: when that call ran out of the deadline of 30s set by its caller runNow at jobwrapper/jobwrapper.go:44`
	}
}

// Quiet: one caller gives no deadline, so record2's ctx may have none.
func (s *Scheduler) runBoth(parent context.Context, j Job) { // want runBoth:"write with ctx param 0 via s.record2"
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	s.record2(ctx, j)
	s.record2(parent, j)
}

func (s *Scheduler) record2(ctx context.Context, j Job) { // want record2:"write with ctx param 0"
	if err := j.Run(ctx); err != nil {
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", j.ID())
	}
}

// Quiet: the caller's context has only a cancel, no deadline.
func (s *Scheduler) runCancel(parent context.Context, j Job) { // want runCancel:"write with ctx param 0 via s.record3"
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	s.record3(ctx, j)
}

func (s *Scheduler) record3(ctx context.Context, j Job) { // want record3:"write with ctx param 0"
	if err := j.Run(ctx); err != nil {
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", j.ID())
	}
}

// Quiet: record4 is also used as a value, so it has callers not in sight.
func (s *Scheduler) runValue(parent context.Context, j Job) func(context.Context, Job) { // want runValue:"write with ctx param 0 via s.record4"
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	s.record4(ctx, j)
	return s.record4
}

func (s *Scheduler) record4(ctx context.Context, j Job) { // want record4:"write with ctx param 0"
	if err := j.Run(ctx); err != nil {
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", j.ID())
	}
}

// Quiet: Record is exported; callers in other packages give what they like.
func (s *Scheduler) runExported(parent context.Context, j Job) { // want runExported:"write with ctx param 0 via s.Record"
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	s.Record(ctx, j)
}

func (s *Scheduler) Record(ctx context.Context, j Job) { // want Record:"write with ctx param 0"
	if err := j.Run(ctx); err != nil {
		s.db.ExecContext(ctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", j.ID())
	}
}

// Quiet: the callee records the failure on a context of its own.
func (s *Scheduler) runFresh(parent context.Context, j Job) {
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	s.recordFresh(ctx, j)
}

func (s *Scheduler) recordFresh(ctx context.Context, j Job) {
	if err := j.Run(ctx); err != nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		s.db.ExecContext(wctx, "UPDATE jobs SET state = 'failed' WHERE id = $1", j.ID())
	}
}

// A deferred release on the caller's deadline: when the job ends the
// function by using up the deadline, the release runs after it expired.
func (s *Scheduler) runLease(parent context.Context, j Job) { // want runLease:"write with ctx param 0 via s.leased"
	ctx, cancel := context.WithTimeout(parent, s.timeout)
	defer cancel()
	_ = s.leased(ctx, j)
}

func (s *Scheduler) leased(ctx context.Context, j Job) error { // want leased:"write with ctx param 0"
	defer s.db.ExecContext(ctx, "DELETE FROM leases WHERE job = $1", j.ID()) // want `deferred write uses ctx, which has expired when the function returns on its deadline \(set by its caller runLease at jobwrapper/jobwrapper.go:134\): s.db.ExecContext fails at once`
	return j.Run(ctx)
}
