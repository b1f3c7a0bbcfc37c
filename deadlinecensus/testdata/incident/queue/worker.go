// Package queue is the worker that carries most traffic: 40s per item,
// through the llm.Completer interface, whose implementation the server
// wires in.
package queue

import (
	"context"
	"time"

	"example.com/incident/llm"
)

// itemTimeout bounds the work on one item.
const itemTimeout = 40 * time.Second

// Worker takes items off a channel.
type Worker struct {
	Model llm.Completer
	Items <-chan string
}

// Run works until the channel closes.
func (w *Worker) Run() {
	for it := range w.Items {
		w.handle(it)
	}
}

func (w *Worker) handle(item string) {
	ctx, cancel := context.WithTimeout(context.Background(), itemTimeout) // want `retry in llm.\(\*Client\).Complete can never start on this path: deadline 40s \(set here\) < 72s needed`
	defer cancel()
	w.Model.Complete(ctx, item)
}
