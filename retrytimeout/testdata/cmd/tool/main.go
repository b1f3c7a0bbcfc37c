// Command tool connects to its database at startup, before any context
// exists: a sleep here keeps nobody waiting.
package main

import (
	"context"
	"log"
	"net/http"
	"time"
)

func main() {
	var resp *http.Response
	var err error
	for i := 0; i < 5; i++ {
		resp, err = http.Get("http://localhost:8080/healthz")
		if err == nil {
			break
		}
		time.Sleep(2 * time.Second)
	}
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	run(context.Background())
}

func run(ctx context.Context) { <-ctx.Done() }
