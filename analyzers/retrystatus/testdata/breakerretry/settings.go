package breakerretry

import (
	"context"
	"net/http"

	"github.com/avast/retry-go/v4"
	"github.com/cenkalti/backoff/v4"
	"github.com/sony/gobreaker/v2"

	"example.com/t/breakerretry/cbconfig"
	"example.com/t/breakerretry/retryx"
)

// A Dialer's breakers are built from Settings another package returns.
type Dialer struct {
	hc      *http.Client
	ws      *gobreaker.CircuitBreaker[struct{}]
	patient *gobreaker.CircuitBreaker[struct{}]
	ratio   *gobreaker.CircuitBreaker[struct{}]
	local   *gobreaker.CircuitBreaker[struct{}]
}

// localSettings opens after 4 failures in a row.
func localSettings() gobreaker.Settings {
	return gobreaker.Settings{Name: "local", IsExcluded: excluded, ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 4 }}
}

func NewDialer(id string) *Dialer {
	local := gobreaker.NewCircuitBreaker[struct{}](localSettings())
	d := &Dialer{hc: &http.Client{}, local: local}
	d.ws = gobreaker.NewCircuitBreaker[struct{}](cbconfig.Socket("ws-" + id))
	st := cbconfig.Patient()
	d.patient = gobreaker.NewCircuitBreaker[struct{}](st)
	d.ratio = gobreaker.NewCircuitBreaker[struct{}](cbconfig.Ratio())
	return d
}

func (d *Dialer) ping(ctx context.Context, url string) (struct{}, error) {
	resp, err := d.send(ctx, url)
	if err != nil {
		return struct{}{}, err
	}
	return struct{}{}, resp.Body.Close()
}

func (d *Dialer) send(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return d.hc.Do(req)
}

func (d *Dialer) throughWS(fn func() (struct{}, error)) (struct{}, error) {
	return d.ws.Execute(fn) // want `the breaker counts every attempt of the retry loop at breakerretry/settings.go:64 \(through throughWS\) as a failure: one request that fails all 7 attempts is 7 failures in a row, and it opens after 3 consecutive failures`
}

// Dial: 7 attempts through a breaker whose Settings (cbconfig.Socket)
// open it after 3.
func (d *Dialer) Dial(ctx context.Context, url string) error {
	const maxRetries = 7
	var err error
	for attempt := range maxRetries {
		if attempt > 0 {
			if werr := pause(ctx, attempt); werr != nil {
				return werr
			}
		}
		if _, err = d.throughWS(func() (struct{}, error) { return d.ping(ctx, url) }); err == nil {
			return nil
		}
	}
	return err
}

// Post hands the helper an operation held in a variable: each of its 8
// attempts runs the breaker built from localSettings, which opens after 4.
func (d *Dialer) Post(ctx context.Context, url string) error {
	operation := func() error {
		_, err := d.local.Execute(func() (struct{}, error) { return d.ping(ctx, url) }) // want `breaker "local" counts every attempt of the retry helper retryx.Eight at breakerretry/settings.go:84 as a failure: one request that fails all 8 attempts is 8 failures in a row, and it opens after 4 consecutive failures`
		return err
	}
	return retryx.Eight(ctx, operation)
}

// Put: the retried literal calls the operation variable.
func (d *Dialer) Put(ctx context.Context, url string) error {
	operation := func() error {
		_, err := d.local.Execute(func() (struct{}, error) { return d.ping(ctx, url) }) // want `breaker "local" counts every attempt of the retry.Do at breakerretry/settings.go:93 as a failure: one request that fails all 5 attempts is 5 failures in a row`
		return err
	}
	return retry.Do(func() error { return operation() }, retry.Attempts(5), retry.Context(ctx))
}

// Quiet: 8 attempts never make the 20 failures in a row that open it.
func (d *Dialer) Patient(ctx context.Context, url string) error {
	operation := func() error {
		_, err := d.patient.Execute(func() (struct{}, error) { return d.ping(ctx, url) })
		return err
	}
	return retryx.Eight(ctx, operation)
}

// Quiet: a ratio over 10 requests.
func (d *Dialer) Ratio(ctx context.Context, url string) error {
	operation := func() error {
		_, err := d.ratio.Execute(func() (struct{}, error) { return d.ping(ctx, url) })
		return err
	}
	return retryx.Eight(ctx, operation)
}

// Quiet: the helper's 2 attempts never make the 4 that open it.
func (d *Dialer) Once(ctx context.Context, url string) error {
	operation := func() error {
		_, err := d.local.Execute(func() (struct{}, error) { return d.ping(ctx, url) })
		return err
	}
	return retryx.Twice(ctx, operation)
}

// Upload: backoff's default schedule bounds its attempts by time alone
// (MaxElapsedTime 15m), so one failing request opens the breaker.
func (d *Dialer) Upload(ctx context.Context, url string) error {
	return backoff.Retry(func() error {
		_, err := d.local.Execute(func() (struct{}, error) { return d.ping(ctx, url) }) // want `breaker "local" counts every attempt of the backoff.Retry at breakerretry/settings.go:126 as a failure: one request that keeps failing is failures in a row with no bound on their count for up to 15m0s, and it opens after 4 consecutive failures`
		return err
	}, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}
