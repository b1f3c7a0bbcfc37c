package conflict

import (
	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// transfer runs one serializable transaction.
func transfer(ctx context.Context, conn *pgx.Conn) error {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable})
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "UPDATE accounts SET balance = balance - 1 WHERE id = 1"); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// serialized re-runs a transaction that lost a serialization race
// (SQLSTATE 40001), and only that: a conflict retry.
func serialized(ctx context.Context, conn *pgx.Conn) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = transfer(ctx, conn); err == nil {
			return nil
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != pgerrcode.SerializationFailure {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// Transfer: quiet.
func Transfer(ctx context.Context, conn *pgx.Conn) error {
	return backoff.Retry(func() error {
		return serialized(ctx, conn)
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
}

// anyFailure re-runs the transaction on any failure.
func anyFailure(ctx context.Context, conn *pgx.Conn) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = transfer(ctx, conn); err == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

// TransferAny: a retry around a retry.
func TransferAny(ctx context.Context, conn *pgx.Conn) error {
	return backoff.Retry(func() error { // want `backoff.Retry \(4 attempts\) at conflict/sql.go:65 wraps retry loop \(5 attempts\) at conflict/sql.go:54 \(through conflict.anyFailure\): up to 20 requests per call`
		return anyFailure(ctx, conn)
	}, backoff.WithMaxRetries(backoff.NewExponentialBackOff(), 3))
}
