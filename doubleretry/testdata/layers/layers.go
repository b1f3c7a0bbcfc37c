// Package layers holds inner layers that retry nothing or are no retry
// of the kind doubleretry multiplies, each beside a lookalike that is.
package layers

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"strings"
	"time"
)

// ---- a retry count of the constant 0 ----

type store struct {
	db      *sql.DB
	retries int
}

func newStore(db *sql.DB) *store { return &store{db: db, retries: 0} }

// save re-runs a failed statement c.retries times after the first; the
// one store this package builds sets 0: no retry.
func (s *store) save(ctx context.Context, v string) error {
	_, err := s.db.ExecContext(ctx, "INSERT INTO kv(v) VALUES ($1)", v)
	for i := 0; i < s.retries; i++ {
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
		_, err = s.db.ExecContext(ctx, "INSERT INTO kv(v) VALUES ($1)", v)
	}
	return err
}

// Save: quiet, the inner layer makes one attempt.
func Save(ctx context.Context, db *sql.DB, v string) error {
	s := newStore(db)
	var err error
	for i := 0; i < 3; i++ {
		if err = s.save(ctx, v); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

const saveRetries = 2

func saveTwice(ctx context.Context, db *sql.DB, v string) error {
	var err error
	for i := 0; i <= saveRetries; i++ {
		if _, err = db.ExecContext(ctx, "INSERT INTO kv(v) VALUES ($1)", v); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// SaveRetried: the inner loop retries twice.
func SaveRetried(ctx context.Context, db *sql.DB, v string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at layers/layers.go:\d+ wraps retry loop \(3 attempts\) at layers/layers.go:\d+ \(through layers.saveTwice\): up to 9 requests per call`
		if err = saveTwice(ctx, db, v); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// ---- database/sql's reconnect on driver.ErrBadConn ----

// InsertUnique retries only a UNIQUE conflict with a new name; the
// reconnect database/sql makes on a dead pooled connection inside
// ExecContext is no retry layer: quiet.
func InsertUnique(ctx context.Context, db *sql.DB, name string) error {
	for i := 0; i < 5; i++ {
		_, err := db.ExecContext(ctx, "INSERT INTO users(name) VALUES ($1)", name)
		if err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), "UNIQUE constraint failed") {
			return err
		}
		time.Sleep(10 * time.Millisecond)
		name += "_"
	}
	return errors.New("no free name")
}

// WaitForDB waits for a test database to accept statements: quiet.
func WaitForDB(ctx context.Context, db *sql.DB) error {
	var err error
	for i := 0; i < 30; i++ {
		if _, err = db.ExecContext(ctx, "SELECT 1"); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// ---- a port probe ----

// waitForSSH dials the SSH port until it answers and closes the
// connection: a readiness wait, not a retry layer.
func waitForSSH(host string) error {
	for i := 0; i < 30; i++ {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort(host, "22"), time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		time.Sleep(2 * time.Second)
	}
	return errors.New("ssh port never answered")
}

// Provision: quiet.
func Provision(host string) error {
	var err error
	for i := 0; i < 3; i++ {
		if err = waitForSSH(host); err == nil {
			return nil
		}
		time.Sleep(5 * time.Second)
	}
	return err
}

// sendHello dials and writes on the connection it got, retrying a failed
// dial or write: a retry of a request.
func sendHello(addr string) error {
	var err error
	for i := 0; i < 4; i++ {
		var conn net.Conn
		if conn, err = net.DialTimeout("tcp", addr, time.Second); err == nil {
			_, err = conn.Write([]byte("hello\n"))
			conn.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(time.Second)
	}
	return err
}

// Hello: the inner loop re-sends.
func Hello(addr string) error {
	var err error
	for i := 0; i < 3; i++ { // want `retry loop \(3 attempts\) at layers/layers.go:\d+ wraps retry loop \(4 attempts\) at layers/layers.go:\d+ \(through layers.sendHello\): up to 12 requests per call`
		if err = sendHello(addr); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
