// Package queue runs the jobs that carry most traffic, 40s each. It holds
// the assistant behind its own small interface, so that the worker on the
// hosted model and the mirror on the local one share the code.
package queue

import (
	"context"
	"time"

	"example.com/incident2/assist"
	"example.com/incident2/offline"
)

// asker is what a worker needs of a model.
type asker interface {
	Ask(ctx context.Context, q string) (string, error)
}

// perJob bounds one job.
const perJob = 40 * time.Second

// Worker answers jobs off a channel.
type Worker struct {
	ai   asker
	jobs <-chan string
	out  chan<- string
}

// NewWorker is the worker on the hosted assistant.
func NewWorker(svc *assist.Service, jobs <-chan string, out chan<- string) *Worker {
	return &Worker{ai: svc, jobs: jobs, out: out}
}

// Serve works until the channel closes.
func (w *Worker) Serve() {
	for q := range w.jobs {
		w.one(q)
	}
}

func (w *Worker) one(q string) {
	ctx, cancel := context.WithTimeout(context.Background(), perJob) // want `retry in assist.\(\*Service\).Ask can never start on this path: deadline 40s \(set here\) < 72s needed`
	defer cancel()
	if a, err := w.ai.Ask(ctx, q); err == nil {
		w.out <- a
	}
}

// Mirror answers the same jobs from the local table with the same 40s:
// quiet, its asker never reaches the hosted model.
type Mirror struct {
	ai asker
}

// NewMirror is the mirror on the local model.
func NewMirror(m *offline.Model) *Mirror {
	return &Mirror{ai: m}
}

// One answers one job.
func (m *Mirror) One(q string) string {
	ctx, cancel := context.WithTimeout(context.Background(), perJob)
	defer cancel()
	a, _ := m.ai.Ask(ctx, q)
	return a
}
