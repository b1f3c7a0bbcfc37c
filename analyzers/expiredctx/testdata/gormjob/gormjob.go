// Package gormjob keeps its jobs in a table through gorm, whose writes take
// the context bound by WithContext.
package gormjob

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

type Job struct {
	ID    int64
	State string
}

func run(ctx context.Context, id int64) error { <-ctx.Done(); return ctx.Err() }

func Handle(ctx context.Context, db *gorm.DB, id int64) error { // want Handle:"write with ctx param 0"
	err := run(ctx, id)
	if errors.Is(err, context.DeadlineExceeded) {
		db.WithContext(ctx).Model(&Job{}).Where("id = ?", id).Update("state", "timeout") // want `write uses ctx after it expired \(checked at gormjob/gormjob.go:21\): db.WithContext...Update fails at once and the write is lost`
		return err
	}
	if err != nil {
		return err
	}
	return db.WithContext(ctx).Model(&Job{}).Where("id = ?", id).Update("state", "done").Error
}

// Reads and fresh contexts stay quiet.
func Quiet(ctx context.Context, db *gorm.DB, id int64) {
	if ctx.Err() != nil {
		var j Job
		db.WithContext(ctx).First(&j, id)
		db.WithContext(context.WithoutCancel(ctx)).Save(&Job{ID: id, State: "timeout"})
	}
}
