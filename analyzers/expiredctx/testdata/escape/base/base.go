// Package base declares the broker interface the processor writes
// through; its implementation is in package rdb (asynq's internal/base).
package base

import (
	"context"
	"time"
)

type TaskMessage struct {
	ID    string
	Queue string
}

// Broker is the task store. MarkAsComplete has a write verb; Done, Retry
// and Archive do not: the implementation's facts decide.
type Broker interface {
	MarkAsComplete(ctx context.Context, msg *TaskMessage) error
	Done(ctx context.Context, msg *TaskMessage) error
	Retry(ctx context.Context, msg *TaskMessage, processAt time.Time, errMsg string) error
	Archive(ctx context.Context, msg *TaskMessage, errMsg string) error
	Ping(ctx context.Context) error
}
