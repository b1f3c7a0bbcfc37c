package fallback

import (
	"context"
	"io"
	"net/http"
	"time"
)

// A backup host asked after the primary failed, on the one deadline set
// before both: a primary that hangs uses all of it, and the backup then
// fails at once.

type mirror struct {
	hc              *http.Client
	primary, backup string
}

func (m *mirror) fetch(ctx context.Context, base, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := m.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func (m *mirror) Get(ctx context.Context, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second) // want `backup call m.fetch at fallback/backup.go:\d+ runs on the one deadline of 3s set here, after m.fetch at fallback/backup.go:\d+ failed: when the first used all of it \(the case the backup is for\) the backup fails at once with context.DeadlineExceeded`
	defer cancel()
	b, err := m.fetch(ctx, m.primary, path)
	if err != nil {
		b, err = m.fetch(ctx, m.backup, path)
	}
	return b, err
}

// Quiet: each host gets a deadline of its own.
func (m *mirror) GetEach(ctx context.Context, path string) ([]byte, error) {
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	b, err := m.fetch(pctx, m.primary, path)
	if err != nil {
		bctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		b, err = m.fetch(bctx, m.backup, path)
	}
	return b, err
}

// Quiet: the backup is asked only while time is left.
func (m *mirror) GetIfTime(ctx context.Context, path string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	b, err := m.fetch(ctx, m.primary, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		b, err = m.fetch(ctx, m.backup, path)
	}
	return b, err
}

// Quiet: a cache miss read through to the store is another operation, not
// a backup of the same one.
type store struct{ m *mirror }

func (s *store) cached(ctx context.Context, key string) ([]byte, error) {
	return s.m.fetch(ctx, "http://cache.internal", "/"+key)
}

func (s *store) Load(ctx context.Context, key string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	b, err := s.cached(ctx, key)
	if err != nil {
		b, err = s.m.fetch(ctx, s.m.primary, key)
	}
	return b, err
}

// Quiet: the deadline is the caller's, not set here.
func (m *mirror) GetOnCallers(ctx context.Context, path string) ([]byte, error) {
	b, err := m.fetch(ctx, m.primary, path)
	if err != nil {
		b, err = m.fetch(ctx, m.backup, path)
	}
	return b, err
}
