// Package job is the background job: 200s.
package job

import (
	"context"
	"time"

	"example.com/incident/llm"
)

const jobTimeout = 200 * time.Second

// Nightly summarises the day.
type Nightly struct {
	LLM *llm.Client
}

// Run runs the job once.
func (j *Nightly) Run(ctx context.Context) error { // want Run:`needs 72s on param 1 for llm.\(\*Client\).Complete`
	ctx, cancel := context.WithTimeout(ctx, jobTimeout)
	defer cancel()
	_, err := j.LLM.Complete(ctx, "summarise the day")
	return err
}
