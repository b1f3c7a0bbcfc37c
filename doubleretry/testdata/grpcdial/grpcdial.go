// Package grpcdial holds retries around code that builds a retrying
// closure: building it is not running it.
package grpcdial

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/avast/retry-go/v4"
	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/retry"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// dial installs a retrying interceptor on the connection; grpc.NewClient
// does not dial, and the interceptor runs on the connection's RPCs later.
func dial(target string) (*grpc.ClientConn, error) {
	return grpc.NewClient(target,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(grpc_retry.UnaryClientInterceptor(grpc_retry.WithMax(3))))
}

// Connect retries the dial (the cirrus-cli agent's shape): quiet, the
// interceptor's retry is not inside the attempt.
func Connect(ctx context.Context, target string) (*grpc.ClientConn, error) {
	var conn *grpc.ClientConn
	err := retry.Do(func() error {
		var err error
		conn, err = dial(target)
		return err
	}, retry.Attempts(5), retry.Delay(time.Second), retry.Context(ctx))
	return conn, err
}

// retrying returns a closure that retries get three times.
func retrying(get func() (*http.Response, error)) func() error {
	return func() error {
		for i := 0; i < 3; i++ {
			resp, err := get()
			if err == nil {
				resp.Body.Close()
				return nil
			}
			time.Sleep(time.Second)
		}
		return errors.New("gave up")
	}
}

// Fetch calls the closure retrying builds inside its own retry: the
// attempts multiply.
func Fetch(ctx context.Context, url string) error {
	get := func() (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		return http.DefaultClient.Do(req)
	}
	return retry.Do(func() error { // want `retry.Do \(3 attempts\) at grpcdial/grpcdial.go:\d+ wraps retry loop \(3 attempts\)`
		return retrying(get)()
	}, retry.Attempts(3), retry.Context(ctx))
}

// Build only builds the retrying closure inside the retry and hands it
// back: quiet.
func Build(ctx context.Context, get func() (*http.Response, error)) (func() error, error) {
	var f func() error
	err := retry.Do(func() error {
		f = retrying(get)
		return nil
	}, retry.Attempts(3), retry.Context(ctx))
	return f, err
}
