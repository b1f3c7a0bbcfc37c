package cancelsrc

import (
	"context"
	"net/http"
	"time"
)

// The attempts run on a field's context that the session makes for
// itself and cancels in Close: its lifetime, not a caller's cancellation
// (gocql's session.ctx, judged so on the real-world set), so the wait is
// no uncancellable wait; nor is a local of another type that also reaches
// a context (the connection the failed dial left nil) what it should
// honour. With nothing a caller cancels in reach, the attempt count is the
// bound the retry can have: quiet.

type session struct {
	ctx    context.Context
	cancel context.CancelFunc
	hc     *http.Client
	url    string
}

type sessConn struct{ sess *session }

func newSession(hc *http.Client, url string) *session {
	ctx, cancel := context.WithCancel(context.Background())
	return &session{ctx: ctx, cancel: cancel, hc: hc, url: url}
}

func (s *session) Close() { s.cancel() }

func (s *session) dial(ctx context.Context) (*sessConn, error) {
	if err := get(ctx, s.hc, s.url); err != nil {
		return nil, err
	}
	return &sessConn{sess: s}, nil
}

type hostPool struct{ sess *session }

func (p *hostPool) connect() (*sessConn, error) {
	var c *sessConn
	var err error
	for i := 0; i < 5; i++ {
		c, err = p.sess.dial(p.sess.ctx)
		if err == nil {
			break
		}
		time.Sleep(jittered(i))
	}
	return c, err
}
