package conflict

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// commit is a transaction commit over gRPC; Aborted means a concurrent
// transaction won the race.
func commit(ctx context.Context, cc *grpc.ClientConn) error {
	return cc.Invoke(ctx, "/db.Store/Commit", nil, nil)
}

// CommitTx re-runs an aborted transaction, and only that: quiet.
func CommitTx(ctx context.Context, cc *grpc.ClientConn) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = commit(ctx, cc); err == nil {
			return nil
		}
		if status.Code(err) != codes.Aborted {
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

// CommitRetry re-runs on Aborted and on Unavailable: a retry of a failing
// server too, judged as any.
func CommitRetry(ctx context.Context, cc *grpc.ClientConn) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = commit(ctx, cc); err == nil {
			return nil
		}
		if c := status.Code(err); c != codes.Aborted && c != codes.Unavailable {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second): // want `no jitter`
		}
	}
	return err
}
