// Package startup holds start-up waits for a database: a constructor that
// takes no context and asks the database on context.Background() until it
// answers has no caller whose deadline it could ignore (quiet). Beside
// them, the same wait in a function handed a context it does not honour
// between attempts.
package startup

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"time"
)

type Store struct{ db *sql.DB }

// NewStore waits up to ten times two seconds for the database: no caller
// can hand it a deadline, so an attempt count is its bound. Quiet.
func NewStore(dsn string) (*Store, error) {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		if _, err = db.ExecContext(ctx, "SELECT 1"); err == nil {
			return &Store{db: db}, nil
		}
		log.Printf("database not ready: %v", err)
		time.Sleep(2 * time.Second)
	}
	return nil, fmt.Errorf("database never answered: %w", err)
}

// openConn asks for a connection on Background in place. Quiet.
func openConn(db *sql.DB) (*sql.Conn, error) {
	var lastErr error
	for n := 0; n < 20; n++ {
		conn, err := db.Conn(context.Background())
		if err == nil {
			return conn, nil
		}
		lastErr = err
		time.Sleep(500 * time.Millisecond)
	}
	return nil, lastErr
}

// Load is handed the caller's ctx and waits through its deadline.
func Load(ctx context.Context, db *sql.DB, id int) (string, error) {
	var name string
	var err error
	for i := 0; i < 10; i++ {
		if err = db.QueryRowContext(ctx, "SELECT name FROM users WHERE id = $1", id).Scan(&name); err == nil {
			return name, nil
		}
		time.Sleep(2 * time.Second) // want `wait ignores cancellation: .*the retry is also attempt-only: retry loop makes 10 attempts`
	}
	return "", err
}

// Refresh has a caller's ctx but runs the query on Background: the
// caller's deadline is ignored by the attempts and the waits alike.
func Refresh(ctx context.Context, db *sql.DB) error {
	var err error
	for i := 0; i < 10; i++ {
		if _, err = db.ExecContext(context.Background(), "REFRESH MATERIALIZED VIEW stats"); err == nil {
			return nil
		}
		time.Sleep(2 * time.Second) // want `wait ignores cancellation: .*the retry is also attempt-only: retry loop makes 10 attempts`
	}
	return err
}
