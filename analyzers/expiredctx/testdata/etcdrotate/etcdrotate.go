// Package etcdrotate closes files under a deadline and, when closing
// fails, records a retry attempt in etcd through the project's operation
// layer (etcdop), on the context whose deadline made closing fail: the
// shape of keboola/keboola-as-code's closeFile before f0bb6bd8c.
package etcdrotate

import (
	"context"
	"errors"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"example.com/t/etcdop"
)

type Storage interface {
	WaitForClosing(ctx context.Context, file string) (int, error)
}

type Operator struct {
	kv      clientv3.KV
	storage Storage
	timeout time.Duration
}

func (o *Operator) retryAttempt(file string) *etcdop.Atomic[string] {
	return etcdop.NewAtomic[string](o.kv, "retry/"+file, "1")
}

// The error of the wait is pending while the state switch runs on its
// success path only; the retry record then runs on the expired ctx.
func (o *Operator) closeFile(ctx context.Context, file string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.timeout)
	defer cancel()

	n, err := o.storage.WaitForClosing(ctx, file)

	dbCtx, dbCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer dbCancel()

	if err == nil {
		err = etcdop.Put(dbCtx, o.kv, "state/"+file, "importing")
		if err != nil {
			err = errors.Join(err, errors.New("cannot switch file"))
		}
	}

	if err != nil {
		log.Printf("closing %s (%d): %v", file, n, err)
		if rErr := o.retryAttempt(file).RequireLock("lock").Do(ctx).Err(); rErr != nil { // want `write uses ctx after o.storage.WaitForClosing failed on it: when that call ran out of the deadline set at etcdrotate/etcdrotate.go:35, o.retryAttempt\(file\).RequireLock\("lock"\).Do fails at once \(it writes through a.write.Do at etcdop/etcdop.go:71\)`
			log.Printf("cannot increment retry: %v", rErr)
		}
	}
}

// Quiet: the retry record runs on dbCtx, detached from the deadline (the
// maintainers' fix).
func (o *Operator) closeFileFixed(ctx context.Context, file string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.timeout)
	defer cancel()

	_, err := o.storage.WaitForClosing(ctx, file)

	dbCtx, dbCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer dbCancel()

	if err != nil {
		_ = o.retryAttempt(file).Do(dbCtx).Err()
	}
}

// Quiet: a Get through the same layer after the failure is a read, not
// work that must happen.
func (o *Operator) readAfterFailure(ctx context.Context, file string) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	if _, err := o.storage.WaitForClosing(ctx, file); err != nil {
		g := &etcdop.Get{}
		_ = g.Do(ctx)
	}
}

// Quiet: err is reassigned on every path before it is tested, so the
// later failure branch is not the wait's.
func (o *Operator) reassigned(ctx context.Context, file string) { // want reassigned:"write with ctx param 0 via etcdop.Put"
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	_, err := o.storage.WaitForClosing(ctx, file)
	log.Printf("waited: %v", err)
	err = o.check(file)
	if err != nil {
		_ = etcdop.Put(ctx, o.kv, "failed/"+file, "1")
	}
}

func (o *Operator) check(string) error { return nil }
