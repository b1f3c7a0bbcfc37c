// Package reentry holds retries whose operation falls back to the retry
// itself: each failed attempt starts a whole new retry. Beside them, a
// retry by recursion (its own mechanism), a fallback that reaches the
// retry only in a goroutine, and one whose error is logged and dropped.
package reentry

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"reflect"
	"time"
)

type Dialer struct {
	attempts int
	delay    time.Duration
}

func (d *Dialer) dial(ctx context.Context, addr string) (net.Conn, error) {
	var nd net.Dialer
	return nd.DialContext(ctx, "tcp", addr)
}

// connect dials once and, on failure, falls back to the retry.
func (d *Dialer) connect(ctx context.Context, addr string) (net.Conn, error) {
	conn, err := d.dial(ctx, addr)
	if err != nil && d.attempts > 1 {
		return d.retryConnect(ctx, addr)
	}
	return conn, err
}

// retryConnect retries connect, which calls retryConnect again on every
// failure. Reported.
func (d *Dialer) retryConnect(ctx context.Context, addr string) (net.Conn, error) {
	for attempt := 1; attempt <= d.attempts; attempt++ { // want `retry loop at reentry/reentry.go:\d+ runs again inside its own attempts \(through reentry.\(\*Dialer\).connect, reentry.\(\*Dialer\).retryConnect\): each failed attempt starts a new retry before this one waits`
		conn, err := d.connect(ctx, addr)
		if err == nil {
			return conn, nil
		}
		time.Sleep(d.delay)
	}
	return nil, errors.New("giving up")
}

// redial is a retry by recursion: calling itself is how it retries. Quiet.
func (d *Dialer) redial(ctx context.Context, addr string, left int) (net.Conn, error) {
	conn, err := d.dial(ctx, addr)
	if err != nil && left > 0 {
		time.Sleep(d.delay)
		return d.redial(ctx, addr, left-1)
	}
	return conn, err
}

// warmAsync starts the retry in the background and returns at once.
func (d *Dialer) warmAsync(ctx context.Context, addr string) error {
	go d.retryWarm(ctx, addr)
	return nil
}

// retryWarm's attempts start another retryWarm only in a goroutine: it
// runs beside the attempt, not inside it. Quiet.
func (d *Dialer) retryWarm(ctx context.Context, addr string) {
	for attempt := 0; attempt < 3; attempt++ {
		if err := d.warmAsync(ctx, addr); err == nil {
			conn, err := d.dial(ctx, addr)
			if err == nil {
				conn.Close()
				return
			}
		}
		time.Sleep(d.delay)
	}
}

// probe logs the retry's failure and goes on.
func (d *Dialer) probe(ctx context.Context, addr string) error {
	if _, err := d.retryProbe(ctx, addr); err != nil {
		log.Printf("probe: %v", err)
	}
	_, err := d.dial(ctx, addr)
	return err
}

// retryProbe's operation reaches retryProbe again, but drops its error:
// the nested retry's failure does not make this one go round. Quiet.
func (d *Dialer) retryProbe(ctx context.Context, addr string) (bool, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = d.probe(ctx, addr); err == nil {
			return true, nil
		}
		time.Sleep(d.delay)
	}
	return false, err
}

// RetryTransport retries the transport it wraps; it is the package's one
// http.RoundTripper, so the call of the wrapped one resolves to it, but a
// decorator wraps another transport: no re-entry (the bodies it re-sends
// are the consumed-body check's).
type RetryTransport struct {
	Next  http.RoundTripper
	Tries int
}

func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for n := 0; n < t.Tries; n++ {
		resp, err = t.Next.RoundTrip(req) // want `the request handed to reentry.\(\*RetryTransport\).RoundTrip \(a RoundTripper: its client's every request, POST and PUT bodies too\) is sent again`
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return resp, err
}

// FindState walks a struct's fields by index, recursing into nested
// structs until one answers: the count bounds a walk over the fields
// (typ.NumField, typ.Field(i)), not attempts, and the recursion is a
// search: no retry, no re-entry.
func FindState(v interface{}) (string, error) {
	val := reflect.ValueOf(v)
	typ := val.Type()
	for i := 0; i < typ.NumField(); i++ {
		sf := typ.Field(i)
		sv := val.Field(i)
		if sv.Kind() == reflect.Struct {
			if s, err := FindState(sv.Interface()); err == nil {
				return s, nil
			}
		}
		if sf.Name == "State" {
			return sv.String(), nil
		}
	}
	return "", errors.New("no state field")
}
