// Package grpcnoclass holds retries of unary gRPC calls that read nothing
// of the error, so permanent codes are sent again (a loop, the project's
// helper given no classifier), beside retries that read the code, a helper
// given a classifier, and a stream reconnect that rightly retries every
// error.
package grpcnoclass

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"example.com/t/grpcnoclass/retryx"
)

func pause(ctx context.Context, i int) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Duration(i+1) * 100 * time.Millisecond):
		return nil
	}
}

// Check retries every error of the call.
func Check(ctx context.Context, c healthpb.HealthClient) (*healthpb.HealthCheckResponse, error) {
	var err error
	for i := 0; i < 4; i++ { // want `retry without a classifier: retry loop retries every error of grpc_health_v1.HealthClient.Check whatever its code, so codes.InvalidArgument, FailedPrecondition, PermissionDenied and Unauthenticated .* fail the same way on each of 4 attempts; retry only Unavailable, ResourceExhausted and Aborted`
		var resp *healthpb.HealthCheckResponse
		if resp, err = c.Check(ctx, &healthpb.HealthCheckRequest{Service: "jobs"}); err == nil {
			return resp, nil
		}
		if werr := pause(ctx, i); werr != nil {
			return nil, werr
		}
	}
	return nil, fmt.Errorf("check: %w", err)
}

// Probe hands the call to the project's helper with no classifier.
func Probe(ctx context.Context, c healthpb.HealthClient, service string) error {
	return retryx.Retry(ctx, func(ctx context.Context) error { // want `retry without a classifier: retry helper retryx.Retry retries every error of grpc_health_v1.HealthClient.Check whatever its code`
		_, err := c.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			return fmt.Errorf("probe %s: %w", service, err)
		}
		return nil
	}, 5, nil)
}

func transient(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.ResourceExhausted, codes.Aborted:
		return true
	}
	return false
}

// Quiet: the helper is given a classifier.
func ProbeClassified(ctx context.Context, c healthpb.HealthClient, service string) error {
	return retryx.Retry(ctx, func(ctx context.Context) error {
		_, err := c.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		return err
	}, 5, transient)
}

// Quiet: the loop reads the code and gives up on the permanent ones.
func CheckClassified(ctx context.Context, c healthpb.HealthClient) (*healthpb.HealthCheckResponse, error) {
	var err error
	for i := 0; i < 4; i++ {
		var resp *healthpb.HealthCheckResponse
		if resp, err = c.Check(ctx, &healthpb.HealthCheckRequest{Service: "jobs"}); err == nil {
			return resp, nil
		}
		if !transient(err) {
			return nil, err
		}
		if werr := pause(ctx, i); werr != nil {
			return nil, werr
		}
	}
	return nil, err
}

// Quiet: re-opening a watch stream after it breaks retries every error
// by design; the stream is no unary call.
func Watch(ctx context.Context, c healthpb.HealthClient, updates chan<- healthpb.HealthCheckResponse_ServingStatus) error {
	for i := 0; i < 10; i++ {
		stream, err := c.Watch(ctx, &healthpb.HealthCheckRequest{Service: "jobs"})
		if err == nil {
			for {
				resp, rerr := stream.Recv()
				if rerr != nil {
					break
				}
				updates <- resp.GetStatus()
			}
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return nil
}

// Quiet: two attempts spend one extra call on a permanent code.
func CheckTwice(ctx context.Context, c healthpb.HealthClient) error {
	var err error
	for i := 0; i < 2; i++ {
		if _, err = c.Check(ctx, &healthpb.HealthCheckRequest{Service: "jobs"}); err == nil {
			return nil
		}
		if werr := pause(ctx, i); werr != nil {
			return werr
		}
	}
	return err
}

// Quiet: a worker that waits for the service with no bound on attempts
// until its context ends.
func AwaitServing(ctx context.Context, c healthpb.HealthClient) error {
	for i := 0; ; i++ {
		if _, err := c.Check(ctx, &healthpb.HealthCheckRequest{Service: "jobs"}); err == nil {
			return nil
		}
		if werr := pause(ctx, 3); werr != nil {
			return werr
		}
	}
}

// Deliver hands the call to the helper whose policy object ends the
// retry: bounded, by a number this package does not see.
func Deliver(ctx context.Context, c healthpb.HealthClient, pol retryx.Policy) error {
	return retryx.RetryPolicy(ctx, func(ctx context.Context) error { // want `retry without a classifier: retry helper retryx.RetryPolicy retries every error of grpc_health_v1.HealthClient.Check whatever its code, .* on every attempt`
		_, err := c.Check(ctx, &healthpb.HealthCheckRequest{Service: "deliveries"})
		return err
	}, pol, nil)
}

// Quiet: the same helper given a classifier.
func DeliverClassified(ctx context.Context, c healthpb.HealthClient, pol retryx.Policy) error {
	return retryx.RetryPolicy(ctx, func(ctx context.Context) error {
		_, err := c.Check(ctx, &healthpb.HealthCheckRequest{Service: "deliveries"})
		return err
	}, pol, transient)
}
