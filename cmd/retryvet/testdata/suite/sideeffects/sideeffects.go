// Package sideeffects records an audit row on every attempt of a retried
// notification: repeated-write reports it, with -sideeffects only.
package sideeffects

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"time"
)

func notify(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("notify: %s", resp.Status)
	}
	return nil
}

// Deliver writes the audit row, then notifies; a failed notification goes
// round again and writes another row.
func Deliver(ctx context.Context, db *sql.DB, url string) error {
	var err error
	for i := 0; i < 3; i++ {
		if _, err = db.ExecContext(ctx, "INSERT INTO deliveries (url) VALUES ($1)", url); err != nil {
			return err
		}
		if err = notify(ctx, url); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(i+1) * time.Second):
		}
	}
	return err
}
