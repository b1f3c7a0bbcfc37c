// Package funcfield: the classifier is a func field the constructor sets
// unless an option gives another; its default decides what a caller gets.
package funcfield

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

var defaultRetriable = map[int]bool{
	http.StatusNotFound:           true,
	http.StatusTooManyRequests:    true,
	http.StatusBadGateway:         true,
	http.StatusServiceUnavailable: true,
	http.StatusGatewayTimeout:     true,
}

// The findings are told at the set's test, where the default decides.
func defaultIsRetriable(code int) bool { return defaultRetriable[code] } // want `retry decision lists 5xx codes 502, 503, 504 \(in funcfield.defaultIsRetriable, p.isRetriable by default\): 500 and 529 \(overloaded\) are not retried` `retry decision retries 404 \(not found\) \(in funcfield.defaultIsRetriable, p.isRetriable by default\)`

type statusError struct{ code int }

func (e *statusError) Error() string { return fmt.Sprintf("status %d", e.code) }

type Protocol struct {
	hc          *http.Client
	isRetriable func(int) bool
}

type Option func(*Protocol)

// WithIsRetriable replaces the classifier: the caller's choice.
func WithIsRetriable(f func(int) bool) Option { return func(p *Protocol) { p.isRetriable = f } }

func New(opts ...Option) *Protocol {
	p := &Protocol{hc: http.DefaultClient}
	for _, o := range opts {
		o(p)
	}
	if p.isRetriable == nil {
		p.isRetriable = defaultIsRetriable
	}
	return p
}

func (p *Protocol) once(req *http.Request) error {
	resp, err := p.hc.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return &statusError{code: resp.StatusCode}
}

func (p *Protocol) Send(ctx context.Context, req *http.Request) error {
	var err error
	for range 5 {
		if err = p.once(req.WithContext(ctx)); err == nil {
			return nil
		}
		var se *statusError
		if errors.As(err, &se) && !p.isRetriable(se.code) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}

// Sender's check is a func field written twice by the package: no one
// default. Quiet.
type Sender struct {
	hc    *http.Client
	check func(int) bool
}

func NewSender(strict bool) *Sender {
	s := &Sender{hc: http.DefaultClient, check: func(code int) bool { return code == 502 || code == 503 }}
	if strict {
		s.check = func(code int) bool { return code >= 500 }
	}
	return s
}

func (s *Sender) Send(ctx context.Context, req *http.Request) error {
	var err error
	for range 5 {
		resp, e := s.hc.Do(req.WithContext(ctx))
		if e != nil {
			return e
		}
		resp.Body.Close()
		if !s.check(resp.StatusCode) {
			return nil
		}
		err = fmt.Errorf("status %d", resp.StatusCode)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}
