// Package runner: a function puts a deadline on ctx for one call and, when
// that call fails, runs the registered cleanups or rollbacks on the same
// ctx (e2b's Create before 879161d; keboola's rotateFile before
// f0bb6bd8c). When the failure was the deadline, every cleanup that does
// I/O on ctx fails at once.
package runner

import (
	"context"
	"database/sql"
	"errors"
	"log"
	"time"

	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"

	"example.com/t/cleanup"
	"example.com/t/etcdop"
)

type Sandbox struct{ id string }

type Server struct {
	db  *sql.DB
	rdb *redis.Client
	kv  clientv3.KV
}

type spanKey struct{}

// startSpan derives a context for tracing, as a tracer's Start does.
func startSpan(ctx context.Context, name string) (context.Context, func()) {
	return context.WithValue(ctx, spanKey{}, name), func() {}
}

// resume registers the cleanups of what it made, and fails when ctx runs out.
func (s *Server) resume(ctx context.Context, id string) (*Sandbox, *cleanup.Cleanup, error) { // want resume:"write with ctx param 0 via s.rdb.Set"
	c := &cleanup.Cleanup{}
	if err := s.rdb.Set(ctx, "sandbox/"+id, "starting", 0).Err(); err != nil {
		return nil, c, err
	}
	c.Add(func(ctx context.Context) error { return s.rdb.Del(ctx, "sandbox/"+id).Err() })
	if _, err := s.db.QueryContext(ctx, "SELECT slot FROM slots WHERE id = $1", id); err != nil {
		return nil, c, err
	}
	return &Sandbox{id: id}, c, nil
}

// The shape of e2b's Create: the failing call gets a child of ctx.
func (s *Server) Create(connCtx context.Context, id string) error { // want Create:"runs Cleanup.priority with ctx param 0" Create:"write with ctx param 0 via s.resume"
	ctx, cancel := context.WithTimeoutCause(connCtx, 60*time.Second, errors.New("request timed out"))
	defer cancel()

	childCtx, end := startSpan(ctx, "create")
	defer end()

	sbx, c, err := s.resume(childCtx, id)
	if err != nil {
		cleanupErr := c.Run(ctx) // want `cleanup uses ctx after s.resume failed on it: when that call ran out of the deadline of 60s set at runner/runner.go:52, c.Run runs the functions registered in Cleanup.priority on it \(at cleanup/cleanup.go:34\): their I/O on it fails at once and what they undo is left behind; run it on context.WithoutCancel\(ctx\) with its own timeout`
		return errors.Join(err, cleanupErr)
	}
	log.Printf("created %s", sbx.id)
	return nil
}

// Quiet: the cleanups get a context of their own (the maintainers' fix).
func (s *Server) CreateFixed(connCtx context.Context, id string) error { // want CreateFixed:"write with ctx param 0 via s.resume"
	ctx, cancel := context.WithTimeout(connCtx, 60*time.Second)
	defer cancel()

	_, c, err := s.resume(ctx, id)
	if err != nil {
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer ccancel()
		return errors.Join(err, c.Run(cctx))
	}
	return nil
}

// Quiet: the cleanups run on the success path only, where ctx has time left.
func (s *Server) CreateThenStop(connCtx context.Context, id string) error { // want CreateThenStop:"runs Cleanup.priority with ctx param 0" CreateThenStop:"write with ctx param 0 via s.resume"
	ctx, cancel := context.WithTimeout(connCtx, 60*time.Second)
	defer cancel()

	_, c, err := s.resume(ctx, id)
	if err != nil {
		return err
	}
	return c.Run(ctx)
}

// Quiet: a runner that detaches, or runs its closures on Background, does
// not run them on ctx; listeners (no error result) and a single func field
// are not registries of cleanups.
func (s *Server) Others(connCtx context.Context, id string, d *cleanup.Detached, b *cleanup.Background, l *cleanup.Listeners, h *cleanup.Chain, r *cleanup.Router) error { // want Others:"write with ctx param 0 via s.resume"
	ctx, cancel := context.WithTimeout(connCtx, 60*time.Second)
	defer cancel()

	if _, _, err := s.resume(ctx, id); err != nil {
		_ = d.Run(ctx)
		_ = b.Run(ctx)
		l.Notify(ctx, "failed")
		_ = h.Serve(ctx)
		_ = r.Dispatch(ctx, "failed")
		_ = r.Call(ctx, "failed")
		return err
	}
	return nil
}

type Operator struct {
	kv      clientv3.KV
	timeout time.Duration
}

func (o *Operator) rotate(file string) *etcdop.Atomic[string] {
	return etcdop.NewAtomic[string](o.kv, "rotate/"+file, "1")
}

func (o *Operator) retryAttempt(file string) *etcdop.Atomic[string] {
	return etcdop.NewAtomic[string](o.kv, "retry/"+file, "1")
}

type rbKey struct{}

// The shape of keboola's rotateFile: the failing call is an operation's
// Do(ctx) whose error is read from its result, the rollback three helper
// levels above its registry, ctx carrying the rollback as a value.
func (o *Operator) rotateFile(ctx context.Context, file string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.timeout)
	defer cancel()

	rb := cleanup.NewRollback()
	ctx = context.WithValue(ctx, rbKey{}, rb)

	err := o.rotate(file).RequireLock("lock").Do(ctx).Err()
	if err != nil {
		rb.InvokeIfErr(ctx, &err) // want `cleanup uses ctx after o.rotate\(file\).RequireLock\("lock"\).Do failed on it: when that call ran out of the deadline set at runner/runner.go:131, rb.InvokeIfErr runs the functions registered in container.callbacks on it \(at cleanup/cleanup.go:88\)`
		log.Printf("cannot rotate file: %v", err)

		// Quiet (same backend, see doc.go): the retry record goes through
		// the same etcd operation layer as the rotation that timed out.
		if rErr := o.retryAttempt(file).Do(ctx).Err(); rErr != nil {
			log.Printf("cannot increment retry attempt: %v", rErr)
		}
	}
}

// Quiet: the failing call is not given ctx (it has a deadline of its own).
func (o *Operator) rotateOwnDeadline(ctx context.Context, file string) { // want rotateOwnDeadline:"runs container.callbacks with ctx param 0"
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	rb := cleanup.NewRollback()
	opCtx, opCancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer opCancel()
	err := o.rotate(file).Do(opCtx).Err()
	if err != nil {
		rb.Invoke(ctx)
	}
}
