// Package worker sets deadlines on several paths and from config fields.
package worker

import (
	"context"
	"time"

	"example.com/svc/config"
	"example.com/svc/llm"
)

// Worker runs jobs.
type Worker struct {
	LLM *llm.Client
	Cfg config.Config
}

// Branch: the context is reassigned in one branch: one row per source
// (5s on one path, none on the other).
func (w *Worker) Branch(urgent bool) {
	ctx := context.Background()
	if urgent {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second) // want `deadline 5s \(set here\) < 72s needed` `deadline 5s is below the 40s \(from .retryvet.yml:3\) p99`
		defer cancel()
	}
	w.LLM.Complete(ctx, "x")
}

// Merge: contexts from different origins meet: one row each.
func (w *Worker) Merge(parent context.Context, detached bool) { // want Merge:`needs 72s on param 1 for llm.\(\*Client\).Complete \(p99 40s\)`
	ctx := parent
	if detached {
		ctx = context.WithoutCancel(parent)
	}
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	w.LLM.Complete(ctx, "x")
}

// Default: the field's default (config.DefaultTimeout, 30s) is folded and
// marked as a default.
func (w *Worker) Default() {
	ctx, cancel := context.WithTimeout(context.Background(), w.Cfg.Timeout)
	defer cancel()
	w.LLM.Complete(ctx, "x")
}

// Constructor: the constructor default (100s).
func (w *Worker) Constructor() {
	ctx, cancel := context.WithTimeout(context.Background(), w.Cfg.BatchTimeout)
	defer cancel()
	w.LLM.Complete(ctx, "x")
}

// FromFile: the values file gives the field's production value (40s).
func (w *Worker) FromFile() {
	ctx, cancel := context.WithTimeout(context.Background(), w.Cfg.JobTimeout) // want `deadline 40s \(set here from .retryvet.yml:5, w.Cfg.JobTimeout\) < 72s needed`
	defer cancel()
	w.LLM.Complete(ctx, "x")
}

// Param: a parameter is never folded.
func (w *Worker) Param(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	w.LLM.Complete(ctx, "x")
}
