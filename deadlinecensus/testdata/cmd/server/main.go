// Command server wires the paths together.
package main

import (
	"context"
	"net/http"
	"os"

	"example.com/t/api"
	"example.com/t/batch"
	"example.com/t/job"
	"example.com/t/llm"
	"example.com/t/queue"
)

func main() {
	client := &llm.Client{HTTP: http.DefaultClient, URL: os.Getenv("LLM_URL")}

	w := &queue.Worker{Model: client, Items: make(chan string)}
	go w.Run()

	j := &job.Nightly{LLM: client}
	go j.Run(context.Background())

	go batch.Run(client, os.Args[1:])

	mux := http.NewServeMux()
	(&api.Server{LLM: client}).Routes(mux)
	http.ListenAndServe(":8080", mux)
}
