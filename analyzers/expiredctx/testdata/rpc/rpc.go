// Package rpc reports a task's outcome through a gRPC client: its methods
// that change state are writes by the naming convention of generated code.
package rpc

import (
	"context"

	"google.golang.org/grpc"
)

type CompleteRequest struct{ TaskID string }
type CompleteResponse struct{}
type GetRequest struct{ TaskID string }
type GetResponse struct{}

// TaskServiceClient is shaped like generated gRPC code.
type TaskServiceClient interface {
	RespondTaskFailed(ctx context.Context, in *CompleteRequest, opts ...grpc.CallOption) (*CompleteResponse, error)
	GetTask(ctx context.Context, in *GetRequest, opts ...grpc.CallOption) (*GetResponse, error)
}

func Work(ctx context.Context, c TaskServiceClient, id string) { // want Work:"status write with ctx param 0"
	select {
	case <-ctx.Done():
		c.RespondTaskFailed(ctx, &CompleteRequest{TaskID: id}) // want `status write uses ctx after it expired \(checked at rpc/rpc.go:24\): c.RespondTaskFailed fails at once and the item stays in progress`
		c.GetTask(ctx, &GetRequest{TaskID: id})                // a read
	}
}
