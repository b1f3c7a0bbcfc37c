// Package grpccodes holds gRPC retries whose decision reads status.Code of
// the call's error: permanent codes retried, beside transient ones and a
// switch that only logs.
package grpccodes

import (
	"context"
	"log"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type client interface {
	Put(ctx context.Context, key string) error
}

// retriesPermanent retries a bad argument and a refused permission.
func retriesPermanent(ctx context.Context, c client, key string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = c.Put(ctx, key); err == nil {
			return nil
		}
		switch status.Code(err) {
		case codes.Unavailable, codes.InvalidArgument, codes.PermissionDenied: // want `retry decision retries codes.InvalidArgument, codes.PermissionDenied: the same request fails the same way on each of 5 attempts; give up on them`
			time.Sleep(time.Duration(i+1) * 100 * time.Millisecond)
			continue
		}
		return err
	}
	return err
}

// retryable is the classifier of the quiet retry: only transient codes.
func retryable(err error) bool {
	c := status.Code(err)
	return c == codes.Unavailable || c == codes.ResourceExhausted
}

func retriesTransient(ctx context.Context, c client, key string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = c.Put(ctx, key); err == nil || !retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * 100 * time.Millisecond):
		}
	}
	return err
}

// logCode names permanent codes only to log them.
func logCode(err error) {
	switch status.Code(err) {
	case codes.InvalidArgument, codes.PermissionDenied:
		log.Printf("rejected: %v", err)
	}
}
