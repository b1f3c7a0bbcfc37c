// Command tool takes its timeout from a flag with a default.
package main

import (
	"context"
	"flag"
	"net/http"

	"example.com/svc/llm"
)

var timeout = flag.Duration("timeout", 20e9, "request timeout")

func main() {
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	c := &llm.Client{HTTP: http.DefaultClient}
	c.Complete(ctx, "x")
}
