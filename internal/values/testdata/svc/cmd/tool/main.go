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
	ctx, cancel := context.WithTimeout(context.Background(), *timeout) // want `deadline 20s \(set here from the default of flag -timeout at tool/main.go:12\) < 72s needed` `deadline 20s is below the 40s \(from .retryvet.yml:3\) p99`
	defer cancel()
	c := &llm.Client{HTTP: http.DefaultClient}
	c.Complete(ctx, "x")
}
