// Package rdb implements base.Broker on Redis (asynq's internal/rdb).
package rdb

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/t/escape/base"
)

type RDB struct{ client redis.UniversalClient }

func NewRDB(c redis.UniversalClient) *RDB { return &RDB{client: c} }

func (r *RDB) MarkAsComplete(ctx context.Context, msg *base.TaskMessage) error {
	return r.client.ZAdd(ctx, "completed:"+msg.Queue, redis.Z{Member: msg.ID}).Err()
}

func (r *RDB) Done(ctx context.Context, msg *base.TaskMessage) error {
	return r.client.LRem(ctx, "active:"+msg.Queue, 0, msg.ID).Err()
}

func (r *RDB) Retry(ctx context.Context, msg *base.TaskMessage, processAt time.Time, errMsg string) error {
	return r.client.ZAdd(ctx, "retry:"+msg.Queue, redis.Z{Score: float64(processAt.Unix()), Member: msg.ID}).Err()
}

func (r *RDB) Archive(ctx context.Context, msg *base.TaskMessage, errMsg string) error {
	return r.client.ZAdd(ctx, "archived:"+msg.Queue, redis.Z{Member: msg.ID}).Err()
}

func (r *RDB) Ping(ctx context.Context) error { return r.client.Ping(ctx).Err() }
