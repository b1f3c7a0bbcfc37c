// Package breaker holds circuit breakers that count a caller's
// cancellation as a failure of the dependency, beside breakers that leave
// context errors out, classify what they count, or guard work on a context
// of their own.
package breaker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	gobreakerv1 "github.com/sony/gobreaker"
	"github.com/sony/gobreaker/v2"
)

// Client calls an inference API through a breaker built with no
// IsSuccessful or IsExcluded: a caller whose deadline ends mid-call counts
// as a failure of the API.
type Client struct {
	hc *http.Client
	cb *gobreaker.CircuitBreaker[*http.Response]
}

func NewClient() *Client {
	return &Client{
		hc: &http.Client{},
		cb: gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{
			Name:    "inference",
			Timeout: 30 * time.Second,
		}),
	}
}

func (c *Client) Complete(ctx context.Context, url string) (*http.Response, error) {
	return c.cb.Execute(func() (*http.Response, error) { // want `breaker "inference" counts the caller's cancellation as a failure of the dependency: this Execute makes its remote call on ctx, the caller's context, and the Settings at breaker/breaker.go:29 set neither IsSuccessful nor IsExcluded, so callers that give up \(context.Canceled, context.DeadlineExceeded\) open it after more than 5 consecutive failures \(gobreaker's default ReadyToTrip\) for every caller; set IsExcluded to leave out context errors`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		if err != nil {
			return nil, err
		}
		return c.hc.Do(req)
	})
}

// search is a v1 breaker in a package variable, guarding a handler's
// upstream call on the request's context.
var search = gobreakerv1.NewCircuitBreaker(gobreakerv1.Settings{Name: "search"})

func Search(w http.ResponseWriter, r *http.Request) {
	resp, err := search.Execute(func() (interface{}, error) { // want `breaker "search" counts the caller's cancellation .* on r.Context\(\), the caller's context, .* set IsSuccessful to leave out context errors`
		req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, "http://search.internal/q", nil)
		if err != nil {
			return nil, err
		}
		return http.DefaultClient.Do(req)
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	fmt.Fprint(w, resp)
}

// Pool keeps one breaker per host, built from a Settings variable; the call
// runs on a per-call timeout derived from the caller's context, which the
// caller's own cancel still ends.
type Pool struct {
	byHost map[string]*gobreaker.CircuitBreaker[*http.Response]
}

func (p *Pool) add(host string) {
	st := gobreaker.Settings{Name: host}
	st.ReadyToTrip = func(c gobreaker.Counts) bool { return c.ConsecutiveFailures > 3 }
	p.byHost[host] = gobreaker.NewCircuitBreaker[*http.Response](st)
}

func (p *Pool) Get(ctx context.Context, host string) (*http.Response, error) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return p.byHost[host].Execute(func() (*http.Response, error) { // want `the breaker counts the caller's cancellation .* on cctx, the caller's context, .* count toward its ReadyToTrip for every caller`
		req, err := http.NewRequestWithContext(cctx, http.MethodGet, "http://"+host, nil)
		if err != nil {
			return nil, err
		}
		return http.DefaultClient.Do(req)
	})
}

// newBreaker is a constructor: what its breaker counts follows it.
func newBreaker() *gobreaker.CircuitBreaker[*http.Response] {
	return gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{Name: "billing"})
}

type Billing struct {
	cb *gobreaker.CircuitBreaker[*http.Response]
}

func NewBilling() *Billing {
	b := &Billing{}
	b.cb = newBreaker()
	return b
}

func (b *Billing) Charge(ctx context.Context) (*http.Response, error) {
	return b.cb.Execute(func() (*http.Response, error) { // want `breaker "billing" counts the caller's cancellation`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://billing.internal/charge", nil)
		return http.DefaultClient.Do(req)
	})
}

// Quiet: the breaker leaves context errors out.
var excluding = gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{
	Name: "excluding",
	IsExcluded: func(err error) bool {
		return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	},
})

func Excluding(ctx context.Context) (*http.Response, error) {
	return excluding.Execute(func() (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://x.internal", nil)
		return http.DefaultClient.Do(req)
	})
}

// Quiet: the breaker counts only what its classifier calls the
// dependency's failure.
var classified = gobreakerv1.NewCircuitBreaker(gobreakerv1.Settings{
	Name:         "classified",
	IsSuccessful: func(err error) bool { return err == nil || !isTransient(err) },
})

var errUnavailable = errors.New("unavailable")

func isTransient(err error) bool { return errors.Is(err, errUnavailable) }

func Classified(ctx context.Context) (interface{}, error) {
	return classified.Execute(func() (interface{}, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://x.internal", nil)
		return http.DefaultClient.Do(req)
	})
}

// Quiet: the call runs on a context of its own, which no caller cancels.
var own = gobreaker.NewCircuitBreaker[*http.Response](gobreaker.Settings{Name: "own"})

func Own(ctx context.Context) (*http.Response, error) {
	_ = ctx
	return own.Execute(func() (*http.Response, error) {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(cctx, http.MethodGet, "http://x.internal", nil)
		return http.DefaultClient.Do(req)
	})
}

// Quiet: no remote call behind the breaker (a local computation that
// reads the context).
var local = gobreaker.NewCircuitBreaker[int](gobreaker.Settings{Name: "local"})

func Local(ctx context.Context) (int, error) {
	return local.Execute(func() (int, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		return 42, nil
	})
}

// Quiet: Settings from the caller: what they count is not known here.
func FromConfig(ctx context.Context, st gobreaker.Settings) (*http.Response, error) {
	cb := gobreaker.NewCircuitBreaker[*http.Response](st)
	return cb.Execute(func() (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://x.internal", nil)
		return http.DefaultClient.Do(req)
	})
}
