// Package escape has closures that capture a context their function
// cancels as it returns, and escape the function to run later (the shape of
// hibiken/asynq's processor: the sync retry handed to the syncer), beside
// the lookalikes that are fine.
package escape

import (
	"context"
	"database/sql"
	"log"
	"log/slog"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"example.com/t/escape/base"
	"example.com/t/escape/rdb"
)

type Lease struct{ deadline time.Time }

func (l *Lease) Deadline() time.Time { return l.deadline }

type syncRequest struct {
	fn       func() error
	errMsg   string
	deadline time.Time
}

type processor struct {
	broker        base.Broker
	syncRequestCh chan<- *syncRequest
	db            *sql.DB
	rdb           *redis.Client
	pending       []func() error
	retries       map[string]func() error
	onStop        func()
	later         *queue
	jobs          chan job
	work          chan *call
}

func newProcessor(r *rdb.RDB, ch chan<- *syncRequest) *processor {
	return &processor{broker: r, syncRequestCh: ch}
}

// asynq's markAsComplete: the closure sent to the syncer runs after the
// return, on the ctx that defer cancel() cancelled.
func (p *processor) markAsComplete(l *Lease, msg *base.TaskMessage) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	err := p.broker.MarkAsComplete(ctx, msg)
	if err != nil {
		p.syncRequestCh <- &syncRequest{
			fn: func() error {
				return p.broker.MarkAsComplete(ctx, msg) // want `p.broker.MarkAsComplete in a closure sent on p.syncRequestCh at escape/escape.go:57 runs after markAsComplete returns, when its defer cancel\(\) at escape/escape.go:54 has cancelled ctx: it fails at once with context.Canceled \(context.DeadlineExceeded if its deadline passed first\) \(it reaches RDB.MarkAsComplete, which writes through r.client.ZAdd at rdb/rdb.go:18\) and the item stays in progress; give the closure a context of its own \(context.WithoutCancel\(ctx\), with a timeout set when it runs\)`
			},
			errMsg:   "could not mark complete",
			deadline: l.Deadline(),
		}
	}
}

// Done has no write verb: the Redis implementation's fact decides.
func (p *processor) markAsDone(l *Lease, msg *base.TaskMessage) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	if err := p.broker.Done(ctx, msg); err != nil {
		p.syncRequestCh <- &syncRequest{
			fn: func() error {
				return p.broker.Done(ctx, msg) // want `p.broker.Done in a closure sent on p.syncRequestCh at escape/escape.go:\d+ runs after markAsDone returns, .* \(it reaches RDB.Done, which writes through r.client.LRem at rdb/rdb.go:22\) and the record is left behind`
			},
			deadline: l.Deadline(),
		}
	}
}

// The request is built first and its function set afterwards.
func (p *processor) retry(l *Lease, msg *base.TaskMessage, e error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	retryAt := time.Now().Add(time.Minute)
	if err := p.broker.Retry(ctx, msg, retryAt, e.Error()); err != nil {
		req := &syncRequest{deadline: l.Deadline()}
		req.fn = func() error {
			return p.broker.Retry(ctx, msg, retryAt, e.Error()) // want `p.broker.Retry in a closure sent on p.syncRequestCh at escape/escape.go:\d+ runs after retry returns`
		}
		p.syncRequestCh <- req
	}
}

// A constructor builds the request, a helper sends it.
func newSyncRequest(fn func() error, deadline time.Time) *syncRequest {
	return &syncRequest{fn: fn, deadline: deadline}
}

func (p *processor) enqueueSync(fn func() error, deadline time.Time) {
	p.syncRequestCh <- newSyncRequest(fn, deadline)
}

func (p *processor) archive(l *Lease, msg *base.TaskMessage, e error) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	if err := p.broker.Archive(ctx, msg, e.Error()); err != nil {
		p.enqueueSync(func() error {
			return p.broker.Archive(ctx, msg, e.Error()) // want `p.broker.Archive in a closure handed to p.enqueueSync, which sends it on p.syncRequestCh at escape/escape.go:\d+ runs after archive returns`
		}, l.Deadline())
	}
}

func (p *processor) archiveDirect(l *Lease, msg *base.TaskMessage, e error) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	if err := p.broker.Archive(ctx, msg, e.Error()); err != nil {
		p.syncRequestCh <- newSyncRequest(func() error {
			return p.broker.Archive(ctx, msg, e.Error()) // want `p.broker.Archive in a closure sent on p.syncRequestCh at escape/escape.go:\d+ runs after archiveDirect returns`
		}, l.Deadline())
	}
}

// Stored in a slice of the receiver, a SQL write.
func (p *processor) deferFlush(id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.pending = append(p.pending, func() error {
		_, err := p.db.ExecContext(ctx, "UPDATE jobs SET state = 'done' WHERE id = $1", id) // want `p.db.ExecContext in a closure appended to p.pending at escape/escape.go:\d+ runs after deferFlush returns`
		return err
	})
}

// Stored in a map of the receiver; the cancel runs on every path after it.
func (p *processor) scheduleRelease(parent context.Context, id string) error { // want scheduleRelease:"write with ctx param 0 via p.rdb.Set"
	ctx, cancel := context.WithCancel(parent)
	err := p.rdb.Set(ctx, "lease:"+id, "x", time.Minute).Err()
	if err != nil {
		p.retries[id] = func() error {
			return p.rdb.Del(ctx, "lease:"+id).Err() // want `p.rdb.Del in a closure stored in p.retries\[id\] at escape/escape.go:139 runs after scheduleRelease returns, when its cancel\(\) at escape/escape.go:142 has cancelled ctx: it fails at once with context.Canceled and the record is left behind`
		}
		cancel()
		return err
	}
	cancel()
	return nil
}

var flushers []func() error

// Appended to a package variable, on a context derived from the cancelled one.
func register(db *sql.DB, id int64) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	flushers = append(flushers, func() error {
		cctx, stop := context.WithTimeout(ctx, time.Second)
		defer stop()
		_, err := db.ExecContext(cctx, "DELETE FROM leases WHERE id = $1", id) // want `db.ExecContext in a closure appended to flushers at escape/escape.go:\d+ runs after register returns, .*context.WithoutCancel\(ctx\)`
		return err
	})
}

// queue keeps work for a later flush.
type queue struct{ items []func() error }

func (q *queue) push(f func() error) { q.items = append(q.items, f) }

func (q *queue) run() {
	for _, f := range q.items {
		f()
	}
}

// Pushed on a queue the receiver keeps: the helper stores it.
func (p *processor) releaseLater(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.later.push(func() error {
		return p.rdb.Del(ctx, "lease:"+id).Err() // want `p.rdb.Del in a closure handed to p.later.push, which appends it to q.items at escape/escape.go:\d+ runs after releaseLater returns`
	})
}

// Returned: the caller can only run it after the return.
func (p *processor) prepareRelease(id string) func() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return func() error {
		return p.rdb.Del(ctx, "lease:"+id).Err() // want `p.rdb.Del in a closure returned at escape/escape.go:\d+ runs after prepareRelease returns`
	}
}

// Sent in a select that gives up when the caller's context is done: the
// other case is not a wait for the closure.
func (p *processor) handOff(parent context.Context, l *Lease, msg *base.TaskMessage) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	req := &syncRequest{fn: func() error { return p.broker.Done(ctx, msg) }} // want `p.broker.Done in a closure sent on p.syncRequestCh at escape/escape.go:\d+ runs after handOff returns`
	select {
	case p.syncRequestCh <- req:
	case <-parent.Done():
		log.Printf("dropped sync of %s", msg.ID)
	}
}

// ---- Quiet lookalikes ----

// The closure makes its own context when it runs.
func (p *processor) markFresh(l *Lease, msg *base.TaskMessage) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	if err := p.broker.MarkAsComplete(ctx, msg); err != nil {
		p.syncRequestCh <- &syncRequest{
			fn: func() error {
				ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
				defer cancel()
				return p.broker.MarkAsComplete(ctx, msg)
			},
		}
	}
}

// The closure detaches from the cancelled context.
func (p *processor) markDetached(l *Lease, msg *base.TaskMessage) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	if err := p.broker.MarkAsComplete(ctx, msg); err != nil {
		p.syncRequestCh <- &syncRequest{
			fn: func() error {
				return p.broker.MarkAsComplete(context.WithoutCancel(ctx), msg)
			},
		}
	}
}

// Stored, then run before the function returns.
func (p *processor) stopNow(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.onStop = func() { p.rdb.Del(ctx, "lease:"+id) }
	p.onStop()
	p.onStop = nil
}

// The closure captures the caller's context, not the one cancelled here.
func (p *processor) syncParent(ctx context.Context, msg *base.TaskMessage) { // want syncParent:"status write with ctx param 0 via p.broker.MarkAsComplete"
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := p.broker.Ping(cctx); err != nil {
		p.syncRequestCh <- &syncRequest{fn: func() error { return p.broker.MarkAsComplete(ctx, msg) }}
	}
}

// The syncer's own loop: the context is its parameter.
func (p *processor) resync(ctx context.Context, msg *base.TaskMessage) { // want resync:"delete with ctx param 0 via p.broker.Done"
	p.syncRequestCh <- &syncRequest{fn: func() error { return p.broker.Done(ctx, msg) }}
}

// Logs and metrics only.
func (p *processor) noteFailure(l *Lease, msg *base.TaskMessage) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	p.syncRequestCh <- &syncRequest{fn: func() error {
		slog.InfoContext(ctx, "sync", "id", msg.ID)
		log.Printf("task %s", msg.ID)
		return nil
	}}
}

type job struct {
	ctx context.Context
	fn  func(context.Context) error
}

// The worker gets the context too: it sees that the work was cancelled.
func (p *processor) submit(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	p.jobs <- job{ctx: ctx, fn: func(context.Context) error { return p.rdb.Del(ctx, "lease:"+id).Err() }}
}

type call struct {
	fn   func() error
	done chan error
}

// A worker runs the closure and answers; the function waits for it.
func (p *processor) runOnWorker(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c := &call{fn: func() error { return p.rdb.Del(ctx, "lease:"+id).Err() }, done: make(chan error, 1)}
	p.work <- c
	return <-c.done
}

// Goroutines that share the function's context are meant to stop with it.
func (p *processor) fanOut(ids []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.rdb.Del(ctx, "lease:"+id)
		}()
	}
	wg.Wait()
	g, gctx := errgroup.WithContext(ctx)
	for _, id := range ids {
		g.Go(func() error { return p.rdb.Del(gctx, "lease:"+id).Err() })
	}
	return g.Wait()
}

// A retry runs the closure before it returns.
func (p *processor) releaseWithRetry(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := backoff.Retry(ctx, func() (struct{}, error) {
		return struct{}{}, p.rdb.Del(ctx, "lease:"+id).Err()
	})
	return err
}

// Cancelled on one path after the store only: on the other, ctx stays
// live for the closure (released elsewhere, when the lease ends).
func (p *processor) cancelSometimes(id string, keep bool) {
	ctx, cancel := context.WithCancel(context.Background())
	p.retries[id] = func() error { return p.rdb.Del(ctx, "lease:"+id).Err() }
	if !keep {
		cancel()
		return
	}
	log.Printf("lease %s kept", id)
}

// Kept in a local and run in a loop before the return.
func (p *processor) localRetry(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	attempt := func() error { return p.rdb.Del(ctx, "lease:"+id).Err() }
	var err error
	for i := 0; i < 3; i++ {
		if err = attempt(); err == nil {
			return nil
		}
	}
	return err
}

// A local queue, run before the return.
func (p *processor) releaseBatch(ids []string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	q := &queue{}
	for _, id := range ids {
		q.push(func() error { return p.rdb.Del(ctx, "lease:"+id).Err() })
	}
	q.run()
}

// A long-running loop hands work out as it goes: the closures run while
// ctx is live, and stop with it when the loop ends.
func (p *processor) dispatch(in <-chan string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for id := range in {
		p.syncRequestCh <- &syncRequest{fn: func() error { return p.rdb.Del(ctx, "lease:"+id).Err() }}
	}
}

// A callback registered for the life of the server the function runs.
func (p *processor) serve(srv interface{ Serve() error }) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p.onStop = func() { p.rdb.Del(ctx, "leases") }
	return srv.Serve()
}

// A deferred Wait runs before the cancel: the worker finishes first.
func (p *processor) drainOne(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	p.syncRequestCh <- &syncRequest{fn: func() error {
		defer wg.Done()
		return p.rdb.Del(ctx, "lease:"+id).Err()
	}}
}

// The request is filled in afterwards, context included.
func (p *processor) submitLater(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	j := &job{}
	j.ctx = ctx
	j.fn = func(context.Context) error { return p.rdb.Del(ctx, "lease:"+id).Err() }
	p.jobs <- *j
}

// The closure stops by itself once ctx is done: written to be bound to it.
func (p *processor) syncUnlessDone(l *Lease, msg *base.TaskMessage) {
	ctx, cancel := context.WithDeadline(context.Background(), l.Deadline())
	defer cancel()
	p.syncRequestCh <- &syncRequest{fn: func() error {
		if ctx.Err() != nil {
			return nil
		}
		return p.broker.Done(ctx, msg)
	}}
}

// A local struct that does not outlive the call.
func (p *processor) localRequest(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var req syncRequest
	req.fn = func() error { return p.rdb.Del(ctx, "lease:"+id).Err() }
	return req.fn()
}
