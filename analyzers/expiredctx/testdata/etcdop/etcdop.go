// Package etcdop is a project's etcd operation layer: operations are built
// as values and run by Do(ctx), which hands a clientv3.Op to the client's
// Do through a retry helper that takes the op as a parameter. Whether a
// Do writes depends on the op: a transaction (OpTxn) writes, a Get does not.
package etcdop

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// DoWithRetry runs any op, a read or a write: it is not a write itself.
func DoWithRetry(ctx context.Context, kv clientv3.KV, op clientv3.Op) (clientv3.OpResponse, error) { // want DoWithRetry:"does etcd op param 2 with ctx param 0 at etcdop/etcdop.go:17"
	for attempt := 0; ; attempt++ {
		resp, err := kv.Do(ctx, op)
		if err == nil || attempt == 3 {
			return resp, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// LowLevelOp pairs an etcd op with the mapping of its response.
type LowLevelOp struct {
	Op  clientv3.Op
	Map func(clientv3.OpResponse) error
}

// Txn is a transaction: its Do writes.
type Txn[R any] struct {
	kv     clientv3.KV
	ifs    []clientv3.Cmp
	thenOp []clientv3.Op
	result *R
}

func (t *Txn[R]) op() LowLevelOp {
	return LowLevelOp{Op: clientv3.OpTxn(t.ifs, t.thenOp, nil)}
}

func (t *Txn[R]) Do(ctx context.Context) error { // want Do:"write with ctx param 0 via DoWithRetry at etcdop/etcdop.go:45"
	op := t.op()
	_, err := DoWithRetry(ctx, t.kv, op.Op)
	return err
}

// Atomic reads, then commits a transaction built from what it read.
type Atomic[R any] struct {
	kv    clientv3.KV
	read  *Get
	write *Txn[R]
}

func NewAtomic[R any](kv clientv3.KV, key, value string) *Atomic[R] {
	return &Atomic[R]{kv: kv, read: &Get{kv: kv, key: key}, write: &Txn[R]{kv: kv, thenOp: []clientv3.Op{clientv3.OpPut(key, value)}}}
}

// Result is what an Atomic's Do gives back: no error result of its own.
type Result struct{ err error }

func (r Result) Err() error { return r.err }

func (a *Atomic[R]) RequireLock(string) *Atomic[R] { return a }

func (a *Atomic[R]) Do(ctx context.Context) Result { // want Do:"write with ctx param 0 via a.write.Do at etcdop/etcdop.go:71"
	if err := a.read.Do(ctx); err != nil {
		return Result{err: err}
	}
	return Result{err: a.write.Do(ctx)}
}

// Get is a read: its Do does not write.
type Get struct {
	kv  clientv3.KV
	key string
}

func (g *Get) op() LowLevelOp {
	return LowLevelOp{Op: clientv3.OpGet(g.key)}
}

func (g *Get) Do(ctx context.Context) error {
	op := g.op()
	_, err := DoWithRetry(ctx, g.kv, op.Op)
	return err
}

// Put writes through the client's Do directly.
func Put(ctx context.Context, kv clientv3.KV, key, value string) error { // want Put:"write with ctx param 0 via kv.Do at etcdop/etcdop.go:92"
	_, err := kv.Do(ctx, clientv3.OpPut(key, value))
	return err
}
