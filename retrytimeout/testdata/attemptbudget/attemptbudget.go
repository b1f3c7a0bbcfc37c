// Package attemptbudget holds deadlines set once around a whole retry with
// the budget of one attempt, beside total budgets and per-attempt timeouts
// that must stay quiet.
package attemptbudget

import (
	"context"
	"math/rand"
	"net"
	"net/http"
	"sync"
	"time"

	"example.com/t/attemptbudget/dialer"
)

type Options struct {
	Dialer       func(ctx context.Context) (net.Conn, error)
	DialTimeout  time.Duration
	Budget       time.Duration
	RetryTimeout time.Duration
}

type Pool struct{ cfg *Options }

func jittered() time.Duration { return time.Duration(rand.Int63n(int64(100 * time.Millisecond))) }

// dialConn retries the dial on the context it is given: that context's
// deadline bounds all five attempts.
func (p *Pool) dialConn(ctx context.Context) (net.Conn, error) {
	var last error
	for attempt := 0; attempt < 5; attempt++ {
		conn, err := p.cfg.Dialer(ctx)
		if err == nil {
			return conn, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, last
		case <-time.After(jittered()):
		}
	}
	return nil, last
}

// newConn gives the whole dial retry the timeout of one dial.
func (p *Pool) newConn(ctx context.Context) (net.Conn, error) {
	dialCtx, cancel := context.WithTimeout(ctx, p.cfg.DialTimeout) // want `one attempt's timeout bounds the whole retry: the context made here with p.cfg.DialTimeout is the one all 5 attempts of the retry loop at attemptbudget/attemptbudget.go:32 \(in attemptbudget.\(\*Pool\).dialConn\) run on, and DialTimeout is the per-attempt timeout of the retry loop at attemptbudget/attemptbudget.go:\d+; an attempt that hangs`
	defer cancel()
	return p.dialConn(dialCtx)
}

// warm reaches the retry through newConn, which derives its context from
// the one given: the timeout made in newConn is reported there, and this
// caller's total budget is quiet.
func (p *Pool) warm() error {
	ctx, cancel := context.WithTimeout(context.Background(), p.cfg.Budget)
	defer cancel()
	conn, err := p.newConn(ctx)
	if err != nil {
		return err
	}
	return conn.Close()
}

// probe dials again until one dial succeeds, each dial with its own
// DialTimeout: the per-attempt use that says what DialTimeout means.
func (p *Pool) probe(ctx context.Context) {
	for {
		actx, cancel := context.WithTimeout(context.Background(), p.cfg.DialTimeout)
		conn, err := p.cfg.Dialer(actx)
		cancel()
		if err == nil {
			conn.Close()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second + jittered()):
		}
	}
}

// A total budget around the retry (a field named for no attempt, used for
// no attempt) is what the caller means to spend on all of it.
func (p *Pool) budgeted(ctx context.Context) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Budget)
	defer cancel()
	return p.dialConn(ctx)
}

// RetryTimeout is a budget for the retry, not for one try.
func (p *Pool) retryBudget(ctx context.Context) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.RetryTimeout)
	defer cancel()
	return p.dialConn(ctx)
}

// One dial, no retry: DialTimeout bounds exactly one attempt.
func (p *Pool) single(ctx context.Context) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.DialTimeout)
	defer cancel()
	return p.cfg.Dialer(ctx)
}

const (
	attemptTimeout = 2 * time.Second
	tryTimeout     = time.Second
)

// A timeout named for one attempt, set once around a retry loop in the
// same function.
func fetch(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout) // want `one attempt's timeout bounds the whole retry: the context made here with attemptTimeout \(2s\) is the one all 3 attempts of the retry loop at attemptbudget/attemptbudget.go:\d+ run on, and attemptTimeout is named for one attempt`
	defer cancel()                                          // want `defer cancel\(\) cancels ctx, derived at .* returns what its .* made on that context: the caller reads the body or stream after the cancel`
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int63n(int64(time.Second << attempt)))):
		}
	}
	return nil, context.DeadlineExceeded
}

// Each attempt with its own timeout inside: the outer one is a budget for
// the attempts together.
func fetchEach(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*tryTimeout+5*time.Second)
	defer cancel() // want `defer cancel\(\) cancels ctx, derived at .* returns what its .* made on that context: the caller reads the body or stream after the cancel`
	for attempt := 0; attempt < 3; attempt++ {
		actx, acancel := context.WithTimeout(ctx, tryTimeout)
		req, err := http.NewRequestWithContext(actx, http.MethodGet, url, nil)
		if err != nil {
			acancel()
			return nil, err
		}
		resp, err := c.Do(req)
		acancel()
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if err == nil {
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(rand.Int63n(int64(time.Second << attempt)))):
		}
	}
	return nil, context.DeadlineExceeded
}

type Config struct {
	DialTimeout    time.Duration
	AttemptTimeout time.Duration
}

// A timeout named for one attempt around a dial retry in another package,
// seen through the model's fact.
func connect(ctx context.Context, cfg Config, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.AttemptTimeout) // want `one attempt's timeout bounds the whole retry: the context made here with cfg.AttemptTimeout is the one all 4 attempts of the retry loop at dialer/dialer.go:\d+ \(in dialer.DialRetry\) run on, and AttemptTimeout is named for one attempt`
	defer cancel()
	return dialer.DialRetry(ctx, &net.Dialer{}, addr)
}

// DialTimeout around the other package's dial retry: the op is not
// visible here, so the name alone does not decide.
func connectDial(ctx context.Context, cfg Config, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	return dialer.DialRetry(ctx, &net.Dialer{}, addr)
}

type Client struct {
	DialTimeout time.Duration
	dial        func(ctx context.Context, addr string) (net.Conn, error)
}

// DialTimeout around a retry of the dial in the same function: the name
// says one dial, and the retried operation is that dial.
func (c *Client) reconnect(ctx context.Context, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.DialTimeout) // want `one attempt's timeout bounds the whole retry: the context made here with c.DialTimeout is the one all 3 attempts of the retry loop at attemptbudget/attemptbudget.go:\d+ run on, and DialTimeout is named for one attempt`
	defer cancel()                                         // want `defer cancel\(\) cancels ctx, derived at .* returns what its .* made on that context: the caller reads the body or stream after the cancel`
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		conn, err := c.dial(ctx, addr)
		if err == nil {
			return conn, nil
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(jittered()):
		}
	}
	return nil, last
}

// DialTimeout around a retry of something that is not a dial: the name
// says nothing about these attempts.
func (c *Client) poll(ctx context.Context, hc *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, c.DialTimeout)
	defer cancel()
	for attempt := 0; attempt < 3; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(jittered()):
		}
	}
	return context.DeadlineExceeded
}

// A dial request queued for a goroutine: the context travels in the
// request's field and a getter hands it to the dial retry there.
type wantConn struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	result chan net.Conn
}

func (w *wantConn) ctxForDial() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ctx
}

// done clears the context once the dial is delivered: that is no other
// context.
func (w *wantConn) done() {
	w.mu.Lock()
	w.ctx = nil
	w.mu.Unlock()
}

// queuedConn gives the queued dial retry the timeout of one dial.
func (p *Pool) queuedConn(ctx context.Context) (net.Conn, error) {
	dialCtx, cancel := context.WithTimeout(context.Background(), p.cfg.DialTimeout) // want `one attempt's timeout bounds the whole retry: the context made here with p.cfg.DialTimeout is the one all 5 attempts of the retry loop at attemptbudget/attemptbudget.go:32 \(in attemptbudget.\(\*Pool\).dialConn\) run on, and DialTimeout is the per-attempt timeout`
	w := &wantConn{ctx: dialCtx, cancel: cancel, result: make(chan net.Conn, 1)}
	go func(w *wantConn) {
		defer w.cancel()
		defer w.done()
		conn, err := p.dialConn(w.ctxForDial())
		if err == nil {
			w.result <- conn
		}
	}(w)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case conn := <-w.result:
		return conn, nil
	}
}

// The same queue with a budget for the whole retry: quiet.
func (p *Pool) queuedBudget(ctx context.Context) (net.Conn, error) {
	bctx, cancel := context.WithTimeout(context.Background(), p.cfg.Budget)
	w := &wantConn{ctx: bctx, cancel: cancel, result: make(chan net.Conn, 1)}
	go func(w *wantConn) {
		defer w.cancel()
		dialCtx := w.ctxForDial()
		if conn, err := p.dialConn(dialCtx); err == nil {
			w.result <- conn
		}
	}(w)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case conn := <-w.result:
		return conn, nil
	}
}

// A holder whose context is replaced after it is built: what the retry
// runs on is not the one made here, so the timeout is not read as its
// bound.
type job struct {
	ctx context.Context
}

func (j *job) rebind(ctx context.Context) { j.ctx = ctx }

func (p *Pool) queuedRebound(ctx context.Context) (net.Conn, error) {
	dctx, cancel := context.WithTimeout(context.Background(), p.cfg.DialTimeout)
	defer cancel()
	j := &job{ctx: dctx}
	j.rebind(ctx)
	return p.dialConn(j.ctx)
}
