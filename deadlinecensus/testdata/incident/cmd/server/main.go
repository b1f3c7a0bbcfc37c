// Command server wires the paths together: the queue gets the model as an
// llm.Completer.
package main

import (
	"context"
	"net/http"
	"os"

	"example.com/incident/api"
	"example.com/incident/batch"
	"example.com/incident/job"
	"example.com/incident/llm"
	"example.com/incident/queue"
)

func main() {
	model := llm.New(os.Getenv("LLM_URL"), os.Getenv("LLM_BACKUP_URL"))
	w := &queue.Worker{Model: model, Items: make(chan string)}
	go w.Run()

	client := llm.NewClient(os.Getenv("LLM_URL"), os.Getenv("LLM_BACKUP_URL"))
	j := &job.Nightly{LLM: client}
	go j.Run(context.Background())

	go batch.Run(client, os.Args[1:])

	mux := http.NewServeMux()
	(&api.Server{LLM: client}).Routes(mux)
	http.ListenAndServe(":8080", mux)
}
