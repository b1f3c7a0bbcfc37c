// Package batch fans questions out, 22s each.
package batch

import (
	"context"
	"time"

	"example.com/incident2/assist"
)

// Fan asks every question at once and collects the answers.
func Fan(svc *assist.Service, qs []string) []string {
	res := make(chan string, len(qs))
	for _, q := range qs {
		go func(q string) {
			ctx, cancel := context.WithTimeout(context.Background(), 22*time.Second) // want `retry in assist.\(\*Service\).Ask can never start on this path: deadline 22s \(set here\) < 72s needed` `deadline 22s is below the 40s p99 of assist.\(\*Service\).Ask`
			defer cancel()
			a, _ := svc.Ask(ctx, q)
			res <- a
		}(q)
	}
	out := make([]string, 0, len(qs))
	for range qs {
		out = append(out, <-res)
	}
	return out
}
