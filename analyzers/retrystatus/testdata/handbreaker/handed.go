package handbreaker

import (
	"context"
	"net/http"
	"os"
	"sync"
	"time"
)

// guard is a breaker whose work is handed to it: run calls the function
// its callers give it, counts an error or a 5xx, and opens in a method of
// its own once the count passes the limit.
type guard struct {
	mu      sync.Mutex
	misses  int
	limit   int
	tripped bool
	at      time.Time
}

func (g *guard) open() {
	g.tripped = true
	g.at = time.Now()
}

func (g *guard) miss() {
	g.misses++
	if g.misses > g.limit {
		g.open()
	}
}

func (g *guard) pass() { g.misses = 0 }

func (g *guard) admits() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.tripped {
		return true
	}
	if time.Since(g.at) > 20*time.Second {
		g.tripped = false
		return true
	}
	return false
}

func (g *guard) run(ctx context.Context, f func(context.Context) (*http.Response, error)) (*http.Response, error) {
	if !g.admits() {
		return nil, errOpen
	}
	resp, err := f(ctx)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil || resp.StatusCode >= 500 {
		g.miss() // want `the hand-rolled breaker counts the caller's cancellation as a failure of the dependency: every error of f \(the remote call handed in at handbreaker/handed.go:70\), which runs on ctx, the caller's context, is counted in misses with no test for context.Canceled or DeadlineExceeded, and at one failure past g.limit it turns later calls away \(at handbreaker/handed.go:39\), so callers that give up open it for every caller; leave context errors out before counting`
		return resp, err
	}
	g.pass()
	return resp, nil
}

type Service struct {
	hc *http.Client
	g  guard
}

func (s *Service) Fetch(ctx context.Context, url string) (*http.Response, error) {
	return s.g.run(ctx, func(ctx context.Context) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		return s.hc.Do(req)
	})
}

// fileGuard is the same breaker around work that stays on this machine:
// every function its callers hand it reads a file, so no caller's
// cancellation is a failure of a dependency.
type fileGuard struct {
	misses  int
	limit   int
	tripped bool
}

func (g *fileGuard) open() { g.tripped = true }

func (g *fileGuard) miss() {
	g.misses++
	if g.misses > g.limit {
		g.open()
	}
}

func (g *fileGuard) admits() bool {
	if g.tripped {
		return false
	}
	return true
}

func (g *fileGuard) run(ctx context.Context, f func(context.Context) ([]byte, error)) ([]byte, error) {
	if !g.admits() {
		return nil, errOpen
	}
	b, err := f(ctx)
	if err != nil || len(b) == 0 {
		g.miss()
		return nil, err
	}
	g.misses = 0
	return b, nil
}

func (s *Service) Config(ctx context.Context, name string) ([]byte, error) {
	var fg fileGuard
	return fg.run(ctx, func(context.Context) ([]byte, error) { return os.ReadFile(name) })
}

// checked hands a remote call to a breaker that leaves the caller's
// giving up out before it counts.
type checked struct {
	misses  int
	tripped bool
}

func (g *checked) miss() {
	g.misses++
	if g.misses >= 3 {
		g.tripped = true
	}
}

func (g *checked) run(ctx context.Context, f func(context.Context) (*http.Response, error)) (*http.Response, error) {
	if g.tripped {
		return nil, errOpen
	}
	resp, err := f(ctx)
	if err != nil || resp.StatusCode >= 500 {
		if ctx.Err() == nil {
			g.miss()
		}
		return resp, err
	}
	g.misses = 0
	return resp, nil
}

func (s *Service) Checked(ctx context.Context, url string) (*http.Response, error) {
	var c checked
	return c.run(ctx, func(ctx context.Context) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		return s.hc.Do(req)
	})
}
