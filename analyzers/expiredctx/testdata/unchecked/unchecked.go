// Package unchecked: a call under a deadline the function sets fails, and
// before its error is checked the code goes on to work on the same ctx
// (keboola's closeFile, where the lock was taken on the ctx whose
// FileCloseTimeout the wait had used up; fixed in 5e83a81). On the path
// where the wait ran out of time that work fails at once.
package unchecked

import (
	"context"
	"database/sql"
	"errors"
	"log"
	"time"

	"github.com/redis/go-redis/v9"
)

// Uploads is a remote service the operator waits on.
type Uploads interface {
	WaitForClosing(ctx context.Context, file string) (int, error)
}

type Operator struct {
	uploads Uploads
	db      *sql.DB
	rdb     *redis.Client
	timeout time.Duration
}

func (o *Operator) closeFile(ctx context.Context, file string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.timeout)
	defer cancel()

	n, err := o.uploads.WaitForClosing(ctx, file)

	dbCtx, dbCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer dbCancel()

	// Lock all file operations.
	release, lockErr := o.LockFile(ctx, file) // want `lock uses ctx before the error of o.uploads.WaitForClosing is checked: when that call ran out of the deadline set at unchecked/unchecked.go:31, o.LockFile fails at once \(it writes through o.rdb.SetNX at unchecked/unchecked.go:\d+\) and the lock is not taken and the work it guards does not run`
	if lockErr != nil {
		log.Printf("cannot lock %s: %v", file, lockErr)
		return
	}
	_ = o.rdb.Set(ctx, "seen/"+file, "1", time.Hour)   // want `write uses ctx before the error of o.uploads.WaitForClosing is checked`
	done := func() { o.rdb.Del(ctx, "closing/"+file) } // quiet: defined here, run later

	// Quiet: the success path's write uses dbCtx.
	if err == nil {
		_, err = o.db.ExecContext(dbCtx, "UPDATE files SET state = 'importing', records = $2 WHERE name = $1", file, n)
	}

	// The failure branch (pending.go) is reported once, as before.
	if err != nil {
		o.db.ExecContext(ctx, "UPDATE files SET retries = retries + 1 WHERE name = $1", file) // want `write uses ctx after o.uploads.WaitForClosing failed on it: when that call ran out of the deadline set at unchecked/unchecked.go:31, o.db.ExecContext fails at once`
	}
	done()
	release()
}

// LockFile takes the file's lock in Redis; the unlock runs on a context of
// its own.
func (o *Operator) LockFile(ctx context.Context, file string) (func(), error) { // want LockFile:"lock with ctx param 0 via o.rdb.SetNX"
	ok, err := o.rdb.SetNX(ctx, "lock/"+file, "me", time.Minute).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("locked")
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		o.rdb.Del(uctx, "lock/"+file)
	}, nil
}

// A record written on every path, before the error is returned.
func (o *Operator) finish(ctx context.Context, file string) error { // want finish:"write with ctx param 0 via o.db.ExecContext"
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	_, err := o.uploads.WaitForClosing(ctx, file)
	o.db.ExecContext(ctx, "UPDATE files SET finished_at = now() WHERE name = $1", file) // want `write uses ctx before the error of o.uploads.WaitForClosing is checked: when that call ran out of the deadline of 10s set at unchecked/unchecked.go:80`
	return err
}

// Quiet: the error is checked before the write.
func (o *Operator) checkedFirst(ctx context.Context, file string) error { // want checkedFirst:"write with ctx param 0 via o.db.ExecContext"
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	_, err := o.uploads.WaitForClosing(ctx, file)
	if err != nil {
		return err
	}
	_, err = o.db.ExecContext(ctx, "UPDATE files SET finished_at = now() WHERE name = $1", file)
	return err
}

// Quiet: the unchecked write uses another ctx.
func (o *Operator) otherCtx(ctx context.Context, file string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	_, err := o.uploads.WaitForClosing(ctx, file)
	dbCtx, dbCancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer dbCancel()
	o.db.ExecContext(dbCtx, "UPDATE files SET finished_at = now() WHERE name = $1", file)
	return err
}

// Quiet: the failing call is not given ctx.
func (o *Operator) notGiven(ctx context.Context, file string) error { // want notGiven:"write with ctx param 0 via o.db.ExecContext"
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	_, err := o.uploads.WaitForClosing(context.Background(), file)
	o.db.ExecContext(ctx, "UPDATE files SET finished_at = now() WHERE name = $1", file)
	return err
}

// Quiet: the error is logged first; the code knows of the failure before
// the write.
func (o *Operator) knownFirst(ctx context.Context, file string) error { // want knownFirst:"write with ctx param 0 via o.db.ExecContext"
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	_, err := o.uploads.WaitForClosing(ctx, file)
	log.Printf("closed %s: %v", file, err)
	o.db.ExecContext(ctx, "UPDATE files SET finished_at = now() WHERE name = $1", file)
	return err
}

// Quiet: the same client for the failing read and the unchecked write (the
// same-backend exception of doc.go). The read is a go-redis command whose
// error is read from its result.
func (o *Operator) sameClient(ctx context.Context, file string) error { // want sameClient:"write with ctx param 0 via o.rdb.Set"
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()

	err := o.rdb.Get(ctx, "state/"+file).Err()
	o.rdb.Set(ctx, "seen/"+file, "1", 0)
	return errors.Join(err, nil)
}
