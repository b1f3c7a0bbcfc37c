// Package failsafe06 exercises failsafe-go before v0.7, whose package
// functions Run and Get take the policies after the operation.
package failsafe06

import (
	"context"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"
)

func call(ctx context.Context) ([]byte, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://x", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	return nil, resp.Body.Close()
}

// Get with a retry policy of 10 attempts, 1s apart: a layer on
// context.Background().
func fetch(ctx context.Context) ([]byte, error) {
	rp := retrypolicy.Builder[[]byte]().WithMaxAttempts(10).WithDelay(time.Second).Build()
	return failsafe.Get(func() ([]byte, error) { return call(ctx) }, rp) // want `^failsafe Get kind=library attempts=10 waits=1s,1s,1s,1s,1s,1s,1s,1s jitter=no deadline=no cancel=no`
}

// Not a layer: a breaker alone.
func guarded(ctx context.Context) ([]byte, error) {
	cb := circuitbreaker.WithDefaults[[]byte]()
	return failsafe.Get(func() ([]byte, error) { return call(ctx) }, cb)
}
