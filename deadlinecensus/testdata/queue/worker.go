// Package queue is the worker that carries most traffic: 40s per item,
// through the llm.Completer interface.
package queue

import (
	"context"
	"time"

	"example.com/t/llm"
)

// ItemTimeout bounds the work on one item.
const ItemTimeout = 40 * time.Second

// Worker takes items off a channel.
type Worker struct {
	Model llm.Completer
	Items chan string
}

// Run works until the channel closes.
func (w *Worker) Run() {
	for it := range w.Items {
		w.handle(it)
	}
}

func (w *Worker) handle(item string) {
	ctx, cancel := context.WithTimeout(context.Background(), ItemTimeout) // want `retry in llm.\(\*Client\).Complete can never start on this path: deadline 40s \(set here\) < 72s needed \(waits 7s, 11s; reserve 65s\); path: queue.\(\*Worker\).handle -> llm.\(\*Client\).Complete`
	defer cancel()
	w.Model.Complete(ctx, item)
}
