// Package breakerlibs holds breakers of failsafe-go, hystrix-go, mercari
// and go-resiliency that count a caller's cancellation as a failure of the
// dependency, beside the same libraries used so that they do not: a
// failsafe-go condition, hystrix.DoC and mercari's Do given the caller's
// context, and work on a context of its own.
package breakerlibs

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/afex/hystrix-go/hystrix"
	"github.com/eapache/go-resiliency/breaker"
	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	mcb "github.com/mercari/go-circuitbreaker"
)

func get(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req)
}

// Embeddings guards the API with a failsafe-go breaker built with no
// Handle condition: every error counts, and one opens it.
type Embeddings struct {
	cb circuitbreaker.CircuitBreaker[*http.Response]
}

func NewEmbeddings() *Embeddings {
	return &Embeddings{cb: circuitbreaker.NewBuilder[*http.Response]().WithDelay(30 * time.Second).Build()}
}

func (e *Embeddings) Get(ctx context.Context, url string) (*http.Response, error) {
	return failsafe.With(e.cb).Get(func() (*http.Response, error) { // want `the breaker counts the caller's cancellation as a failure of the dependency: this execution makes its remote call on ctx, the caller's context, and the failsafe-go builder at breakerlibs/breakerlibs.go:36 sets no Handle condition \(HandleErrors, HandleErrorTypes, HandleIf\), so every error counts and callers that give up \(context.Canceled, context.DeadlineExceeded\) open it after 1 failure \(failsafe-go's default\) for every caller; add a HandleIf that leaves out context errors`
		return get(ctx, url)
	})
}

// defaults is failsafe-go's NewWithDefaults in a package variable, run
// through an executor held in a local with the caller's context: the
// execution's context is not consulted by the breaker.
var defaults = circuitbreaker.NewWithDefaults[*http.Response]()

func Rerank(ctx context.Context, url string) (*http.Response, error) {
	exec := failsafe.With(defaults).WithContext(ctx)
	return exec.Get(func() (*http.Response, error) { // want `counts the caller's cancellation .* the failsafe-go builder at breakerlibs/breakerlibs.go:48 sets no Handle condition`
		return get(ctx, url)
	})
}

// transient counts only what its condition classifies: quiet.
var transient = circuitbreaker.NewBuilder[*http.Response]().
	HandleIf(func(_ *http.Response, err error) bool {
		return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}).
	WithFailureThreshold(5).
	Build()

func Classify(ctx context.Context, url string) (*http.Response, error) {
	return failsafe.With(transient).Get(func() (*http.Response, error) { return get(ctx, url) })
}

// Moderate runs on hystrix.Do, which gets no context: a cancelled request
// comes back as a *url.Error and counts.
func Moderate(ctx context.Context, url string) error {
	return hystrix.Do("moderation", func() error { // want `breaker "moderation" counts the caller's cancellation as a failure of the dependency: this call makes its remote call on ctx, the caller's context, without giving hystrix that context, .* open it after 50% errors over at least 20 requests in 10s \(hystrix-go's default\) for every caller; call hystrix.DoC with the caller's context`
		resp, err := get(ctx, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, nil)
}

// ModerateC gives hystrix the context and runs on the one it passes:
// hystrix reports the context's end itself. Quiet.
func ModerateC(ctx context.Context, url string) error {
	return hystrix.DoC(ctx, "moderation", func(ctx context.Context) error {
		resp, err := get(ctx, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, nil)
}

// Warm runs on a context of its own: nothing a caller does ends it. Quiet.
func Warm(url string) error {
	return hystrix.Do("warm", func() error {
		resp, err := get(context.Background(), url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}, nil)
}

// Search is a mercari breaker given a root context while the operation
// runs on the caller's: the breaker cannot tell the caller's cancellation.
var search = mcb.New(mcb.WithTripFunc(mcb.NewTripFuncConsecutiveFailures(4)))

func Search(ctx context.Context, url string) (interface{}, error) {
	return search.Do(context.Background(), func() (interface{}, error) { // want `the breaker counts the caller's cancellation as a failure of the dependency: this Do is given context.Background\(\) while its operation makes its remote call on ctx, the caller's context, .* open it after 4 failures for every caller; give Do the caller's context`
		return get(ctx, url)
	})
}

// SearchCtx gives Do the caller's context: mercari leaves its end out.
func SearchCtx(ctx context.Context, url string) (interface{}, error) {
	return search.Do(ctx, func() (interface{}, error) { return get(ctx, url) })
}

// strict is told to count the context's end: a choice, not a slip. Quiet.
var strict = mcb.New(mcb.WithFailOnContextCancel(true))

func Strict(ctx context.Context, url string) (interface{}, error) {
	return strict.Do(context.Background(), func() (interface{}, error) { return get(ctx, url) })
}

// Billing is a go-resiliency breaker: every error of the work counts.
type Billing struct{ br *breaker.Breaker }

func NewBilling() *Billing { return &Billing{br: breaker.New(3, 1, 10*time.Second)} }

func (b *Billing) Charge(ctx context.Context, url string) error {
	return b.br.Run(func() error { // want `the breaker counts the caller's cancellation .* the breaker at breakerlibs/breakerlibs.go:129 counts every error its work returns, so callers that give up \(context.Canceled, context.DeadlineExceeded\) open it after 3 failures for every caller`
		resp, err := get(ctx, url)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
}

// Count runs local work through the breaker: no remote call. Quiet.
func (b *Billing) Count(ctx context.Context, n *int) error {
	return b.br.Run(func() error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		*n++
		return nil
	})
}
