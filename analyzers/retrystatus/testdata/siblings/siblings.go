// Package siblings: classifiers of a broker client's retry that retry
// io.EOF and give up on io.ErrUnexpectedEOF.
package siblings

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"
)

var errBrokerDead = errors.New("broker dead")

// retryable is the classifier of send's retry.
func retryable(err error) bool {
	if err == nil {
		return false
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Op != "dial"
	}
	if errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) { // want `retry classifier siblings.retryable retries io.EOF but gives up on io.ErrUnexpectedEOF: a peer that closes the connection in the middle of a message \(io.ReadFull's answer, a proxy cutting a frame\) fails the call at once, while the same close between messages is retried; retry io.ErrUnexpectedEOF too`
		return true
	}
	if errors.Is(err, errBrokerDead) {
		return true
	}
	var temp interface{ Temporary() bool }
	if errors.As(err, &temp) {
		return temp.Temporary()
	}
	return false
}

type conn interface {
	roundTrip(ctx context.Context, req []byte) ([]byte, error)
}

func send(ctx context.Context, c conn, req []byte) ([]byte, error) {
	var last error
	for i := 0; i < 5; i++ {
		resp, err := c.roundTrip(ctx, req)
		if err == nil {
			return resp, nil
		}
		if !retryable(err) {
			return nil, err
		}
		last = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(i+1) * 100 * time.Millisecond):
		}
	}
	return nil, last
}

// closedEarly is written with ==, and reached through a predicate of the
// loop.
func closedEarly(err error) bool {
	return err == io.EOF // want `retry classifier siblings.closedEarly retries io.EOF but gives up on io.ErrUnexpectedEOF`
}

func shouldRetry(err error, tries int) bool {
	return closedEarly(err) && tries < 3
}

func fetch(ctx context.Context, c conn, req []byte) ([]byte, error) {
	for tries := 0; ; tries++ {
		resp, err := c.roundTrip(ctx, req)
		if err == nil {
			return resp, nil
		}
		if !shouldRetry(err, tries) {
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Quiet: both closes are retried.
func bothRetried(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Quiet: the error's text decides, which no evaluation reads.
func byText(err error) bool {
	if errors.Is(err, io.EOF) {
		return true
	}
	return strings.Contains(err.Error(), "connection reset")
}

func produce(ctx context.Context, c conn, req []byte) error {
	for i := 0; i < 3; i++ {
		_, err := c.roundTrip(ctx, req)
		if err == nil {
			return nil
		}
		if !bothRetried(err) && !byText(err) {
			return err
		}
		time.Sleep(time.Second)
	}
	return errors.New("exhausted")
}

// Quiet: io.EOF is the end of the input in a read loop, not a retry.
func done(err error) bool {
	return errors.Is(err, io.EOF)
}

func lines(r *bufio.Reader) ([]string, error) {
	var out []string
	for {
		l, err := r.ReadString('\n')
		if done(err) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, l)
	}
}

// Quiet: in this retry, io.EOF ends the loop (the peer is done); true
// means stop, not retry.
func finished(err error) bool {
	return errors.Is(err, io.EOF)
}

func consume(ctx context.Context, c conn, req []byte) error {
	for i := 0; i < 5; i++ {
		_, err := c.roundTrip(ctx, req)
		if err == nil {
			continue
		}
		if finished(err) {
			return nil
		}
		time.Sleep(time.Second)
	}
	return errors.New("exhausted")
}
