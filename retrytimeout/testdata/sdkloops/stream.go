package sdkloops

import (
	"bufio"
	"context"
	"errors"
	"io"
	"time"
)

type tokenStream struct {
	sc    *bufio.Scanner
	delay time.Duration
}

func retryable(err error) bool { return !errors.Is(err, io.ErrUnexpectedEOF) }

// next reads the next event; on a read error it waits and reads again. The
// select only polls ctx before each read: the sleep in its default clause
// is a wait of its own, and it ignores ctx.
func (s *tokenStream) next(ctx context.Context) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		default:
			if !s.sc.Scan() {
				if err := s.sc.Err(); err != nil {
					if retryable(err) {
						time.Sleep(2 * time.Second) // want `wait ignores cancellation: time.Sleep in retry loop keeps waiting after ctx is done`
						continue
					}
					return "", err
				}
				return "", io.EOF
			}
			return s.sc.Text(), nil
		}
	}
}

// nextFixed waits in a select on ctx.Done() inside the default clause.
func (s *tokenStream) nextFixed(ctx context.Context) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		default:
			if !s.sc.Scan() {
				if err := s.sc.Err(); err != nil {
					if retryable(err) {
						select {
						case <-ctx.Done():
							return "", ctx.Err()
						case <-time.After(2 * time.Second):
						}
						continue
					}
					return "", err
				}
				return "", io.EOF
			}
			return s.sc.Text(), nil
		}
	}
}

// drain logs each line and pauses between lines: a select's default
// clause that sleeps after a success is a paced reader, not a retry.
func (s *tokenStream) drain(ctx context.Context, out chan<- string) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
			if !s.sc.Scan() {
				return s.sc.Err()
			}
			out <- s.sc.Text()
			time.Sleep(s.delay)
		}
	}
}
