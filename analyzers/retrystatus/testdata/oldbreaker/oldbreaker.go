// Package oldbreaker holds a gobreaker from before v0.5, whose Settings
// has no IsSuccessful: every error counts, so the advice is to upgrade,
// and no edit is offered (the field would not compile).
package oldbreaker

import (
	"context"
	"net/http"

	"github.com/sony/gobreaker"
)

var cb = gobreaker.NewCircuitBreaker(gobreaker.Settings{Name: "search"})

func Get(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	res, err := cb.Execute(func() (interface{}, error) { // want `breaker "search" counts the caller's cancellation as a failure of the dependency: this Execute makes its remote call on ctx, the caller's context, and this gobreaker counts every error \(it has no IsSuccessful before v0.5\), .*; upgrade gobreaker and set IsSuccessful to leave out context errors`
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		return c.Do(req)
	})
	if err != nil {
		return nil, err
	}
	return res.(*http.Response), nil
}
