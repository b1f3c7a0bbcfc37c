// Package cancelled has calls given a context after its own cancel has run
// on every path to them, and the lookalikes that are fine.
package cancelled

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

type Notification struct{ Payload string }

// Listener is a driver's LISTEN connection: its methods stop when their
// context is done.
type Listener interface {
	Ping(ctx context.Context) error
	WaitForNotification(ctx context.Context) (*Notification, error)
}

// EventLogger records; it does not fail on a done context.
type EventLogger interface {
	Record(ctx context.Context, msg string) error
}

type Notifier struct {
	listener Listener
	log      EventLogger
	db       *sql.DB
	buf      chan *Notification

	waitCancel context.CancelFunc
	cancel     context.CancelFunc
}

// waitOnce is the notifier's health check: after an idle interval it drains
// the wait, which cancels ctx, and then pings on that same ctx.
func (n *Notifier) waitOnce(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	errChan := make(chan error, 1)
	go func() {
		for {
			notification, err := n.listener.WaitForNotification(ctx)
			if err != nil {
				errChan <- err
				return
			}
			n.buf <- notification
		}
	}()

	drainErrChan := func() error {
		cancel()
		if err := <-errChan; err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}

	needPingCtx, needPingCancel := context.WithTimeout(ctx, 5*time.Second)
	defer needPingCancel()

	select {
	case <-ctx.Done():
		return <-errChan
	case <-needPingCtx.Done():
		if err := drainErrChan(); err != nil {
			return err
		}
		if err := n.listener.Ping(ctx); err != nil { // want `n.listener.Ping is given ctx after the cancel of its context.WithCancel at cancelled/cancelled.go:41 has run on every path to it \(drainErrChan\(\) at cancelled/cancelled.go:71 calls cancel\): it fails at once with context.Canceled; give it a context that is still live`
			return err
		}
	case err := <-errChan:
		return err
	}
	return nil
}

// direct: cancel() itself, then a database call on the cancelled ctx.
func (n *Notifier) direct(parent context.Context) error {
	ctx, cancel := context.WithTimeout(parent, time.Second)
	n.listener.WaitForNotification(ctx)
	cancel()
	return n.db.PingContext(ctx) // want `n.db.PingContext is given ctx after the cancel of its context.WithTimeout at cancelled/cancelled.go:85 has run on every path to it \(cancel\(\) at cancelled/cancelled.go:87\): it fails at once with context.Canceled \(context.DeadlineExceeded if its deadline passed first\)`
}

// shutdown: the server's context is cancelled by a helper method through
// the field that holds the cancel, then the shutdown is given it.
func (n *Notifier) shutdown(parent context.Context, srv *http.Server) error { // want shutdown:"shutdown with ctx param 0 via srv.Shutdown"
	var ctx context.Context
	ctx, n.cancel = context.WithCancel(parent)
	go srv.ListenAndServe()
	n.stop()
	return srv.Shutdown(ctx) // want `srv.Shutdown is given ctx after the cancel of its context.WithCancel at cancelled/cancelled.go:95 has run on every path to it \(n.stop\(\) at cancelled/cancelled.go:97 calls n.cancel\): it fails at once with context.Canceled;`
}

func (n *Notifier) stop() {
	n.cancel()
	close(n.buf)
}

// helper: a function of the package that calls the cancel it is given.
func (n *Notifier) helper(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	stopAll(cancel)
	return n.flush(ctx) // want `n.flush is given ctx after the cancel of its context.WithCancel at cancelled/cancelled.go:108 has run on every path to it \(stopAll\(\) at cancelled/cancelled.go:109 calls cancel\): it fails at once with context.Canceled \(it returns the error of n.listener.Ping at cancelled/cancelled.go:120\)`
}

func stopAll(cancel context.CancelFunc) {
	defer cancel()
	slog.Info("stopping")
}

// flush fails on a done ctx: it returns the error of a call that does.
func (n *Notifier) flush(ctx context.Context) error {
	return n.listener.Ping(ctx)
}

// annotate uses its context only for values: no fact.
func annotate(ctx context.Context, msg string) error {
	if msg == "" {
		return errors.New("empty")
	}
	slog.InfoContext(ctx, msg)
	return nil
}

// Quiet lookalikes.

// fresh: after the cancel, ctx is replaced by a fresh context.
func (n *Notifier) fresh(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	cancel()
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return n.listener.Ping(ctx)
}

// oneBranch: the cancel runs in one branch only.
func (n *Notifier) oneBranch(parent context.Context, stop bool) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	if stop {
		cancel()
	}
	return n.listener.Ping(ctx)
}

// child: the child's cancel runs; the call uses the parent.
func (n *Notifier) child(ctx context.Context) error {
	wctx, wcancel := context.WithTimeout(ctx, time.Second)
	n.listener.WaitForNotification(wctx)
	wcancel()
	return n.listener.Ping(ctx)
}

// deferred: defer cancel() runs after the call.
func (n *Notifier) deferred(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	return n.listener.Ping(ctx)
}

// reporting: after the cancel, only ctx.Err(), Done and logging.
func (n *Notifier) reporting(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	cancel()
	<-ctx.Done()
	select {
	case <-ctx.Done():
	default:
	}
	slog.InfoContext(ctx, "stopped")
	_ = n.log.Record(ctx, "stopped")
	if err := n.log.Record(ctx, "stopped"); err != nil {
		return err
	}
	return ctx.Err()
}

// ignored: the error of the call on the cancelled ctx is not read.
func (n *Notifier) ignored(parent context.Context) {
	ctx, cancel := context.WithCancel(parent)
	cancel()
	n.listener.Ping(ctx)
	_ = n.listener.Ping(ctx)
}

// noFact: a project function that does not fail on a done ctx.
func (n *Notifier) noFact(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	cancel()
	return annotate(ctx, "done")
}

// replaced: the cancel variable is given another cancel before it runs.
func (n *Notifier) replaced(parent context.Context) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	other, cancel := context.WithCancel(parent)
	cancel()
	n.listener.WaitForNotification(other)
	return n.listener.Ping(ctx)
}

// replacedField: the field is given a new WithCancel's cancel before the
// helper runs it.
func (n *Notifier) replacedField(parent context.Context) error {
	var ctx context.Context
	ctx, n.waitCancel = context.WithCancel(parent)
	_, n.waitCancel = context.WithCancel(parent)
	n.waitCancel()
	return n.listener.Ping(ctx)
}

// perTurn: each turn makes its own ctx; the cancel of the last turn does
// not reach the next call.
func (n *Notifier) perTurn(parent context.Context) error {
	var err error
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(parent, time.Second)
		err = n.listener.Ping(ctx)
		cancel()
		if err == nil {
			return nil
		}
	}
	return err
}

// conditional: the closure cancels only sometimes.
func (n *Notifier) conditional(parent context.Context, hard bool) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	maybeStop := func() {
		if hard {
			cancel()
		}
	}
	maybeStop()
	return n.listener.Ping(ctx)
}

// earlier: a context derived before the site is not its child.
func (n *Notifier) earlier(ctx context.Context) error {
	vctx := context.WithValue(ctx, "k", "v")
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	n.listener.WaitForNotification(ctx)
	return n.listener.Ping(vctx)
}

// stored: a closure kept for later reassigns ctx; the flow is not known.
func (n *Notifier) stored(parent context.Context) (func(), error) {
	ctx, cancel := context.WithCancel(parent)
	reset := func() { ctx = context.Background() }
	cancel()
	return reset, n.listener.Ping(ctx)
}

// request: NewRequestWithContext only stores the context.
func (n *Notifier) request(parent context.Context) (*http.Request, error) {
	ctx, cancel := context.WithCancel(parent)
	cancel()
	return http.NewRequestWithContext(ctx, http.MethodGet, "http://example.com", nil)
}

// afterReturn: the cancel runs only on the path that returns.
func (n *Notifier) afterReturn(parent context.Context, bad bool) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	if bad {
		cancel()
		return errors.New("bad")
	}
	return n.listener.Ping(ctx)
}

// expected: a test of the cancellation path checks for it on purpose.
func (n *Notifier) expected(parent context.Context) bool {
	ctx, cancel := context.WithCancel(parent)
	cancel()
	err := n.listener.Ping(ctx)
	return errors.Is(err, context.Canceled) && errors.Is(n.db.PingContext(ctx), context.Canceled)
}

// field: the cancel is held in a field and called through it.
func (n *Notifier) field(parent context.Context) error {
	var ctx context.Context
	ctx, n.waitCancel = context.WithCancel(parent)
	n.waitCancel()
	return n.listener.Ping(ctx) // want `n.listener.Ping is given ctx after the cancel of its context.WithCancel at cancelled/cancelled.go:294 has run on every path to it \(n.waitCancel\(\) at cancelled/cancelled.go:295\)`
}
