// Package caller retries requests through clients package rt builds: a
// loop around the retrying one sends up to 3 x 3 requests per call; the
// same loop around the logging one, or around a client with no transport
// of its own, is the only retry.
package caller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"example.com/t/xtransport/rt"
)

type Service struct {
	hc  *http.Client
	log *http.Client
}

func New() *Service { return &Service{hc: rt.NewRetrying(), log: rt.NewLogging()} }

func get(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

func pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(rand.N(2 * time.Second)):
		return nil
	}
}

// Ping retries through the field a constructor gave the retrying client.
func (s *Service) Ping(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at caller/caller.go:52 wraps retry loop \(3 attempts\) at rt/rt.go:18 \(through rt.NewRetrying, http.Client Transport rt.\(\*Retrying\).RoundTrip\): up to 9 requests per call`
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := s.hc.Do(req)
		if derr == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		} else {
			err = derr
		}
		if werr := pause(ctx); werr != nil {
			return werr
		}
	}
	return err
}

// PingShared retries through the package-level retrying client.
func PingShared(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at caller/caller.go:77 wraps retry loop \(3 attempts\) at rt/rt.go:18 \(through rt.Shared, http.Client Transport rt.\(\*Retrying\).RoundTrip\): up to 9 requests per call`
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := rt.Shared.Do(req)
		if derr == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		} else {
			err = derr
		}
		if werr := pause(ctx); werr != nil {
			return werr
		}
	}
	return err
}

// PingLogged: the logging transport sends once; this loop is the only retry.
func (s *Service) PingLogged(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := s.log.Do(req)
		if derr == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		} else {
			err = derr
		}
		if werr := pause(ctx); werr != nil {
			return werr
		}
	}
	return err
}

// PingDefault: http.DefaultClient retries nothing.
func PingDefault(ctx context.Context, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = get(ctx, http.DefaultClient, url); err == nil {
			return nil
		}
		if werr := pause(ctx); werr != nil {
			return werr
		}
	}
	return err
}
