// Package cases holds the census' harder cases.
package cases

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"example.com/t/llm"
	"example.com/t/search"
)

// DeadlineFromNow sets its deadline as a point in time.
func DeadlineFromNow(c *llm.Client) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(30*time.Second)) // want `retry in llm.\(\*Client\).Complete can never start on this path: deadline 30s \(set here\) < 72s needed` `deadline 30s is below the 40s p99`
	defer cancel()
	c.Complete(ctx, "x")
}

// Nested: the inner, longer timeout does not extend the outer one.
func Nested(c *llm.Client) {
	outer, cancel := context.WithTimeout(context.Background(), 50*time.Second) // want `deadline 50s \(set here\) < 72s needed`
	defer cancel()
	inner, cancel2 := context.WithTimeout(outer, 300*time.Second)
	defer cancel2()
	c.Complete(inner, "x")
}

// Unfoldable reads its timeout from the environment.
func Unfoldable(c *llm.Client) {
	n, _ := strconv.Atoi(os.Getenv("TIMEOUT_SECONDS"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n)*time.Second)
	defer cancel()
	c.Complete(ctx, "x")
}

// Config is a configuration struct.
type Config struct {
	Timeout time.Duration
}

var cfg = Config{Timeout: 90 * time.Second}

// FromConfig takes its timeout from a config struct literal.
func FromConfig(c *llm.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	c.Complete(ctx, "x")
}

// Walk recurses before it calls the pipeline.
func Walk(ctx context.Context, c *llm.Client, depth int) { // want Walk:`needs 72s on param 0`
	if depth > 0 {
		Walk(ctx, c, depth-1)
	}
	c.Complete(ctx, "x")
}

// Tree calls the recursive walk with 90s.
func Tree(c *llm.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	Walk(ctx, c, 3)
}

// Both calls two pipelines with one deadline.
func Both(c *llm.Client, s *search.Index) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // want `retry in llm.\(\*Client\).Complete can never start` `deadline 10s is below the 40s p99 of llm.\(\*Client\).Complete` `retry in search.\(\*Index\).Query can never start on this path: deadline 10s \(set here\) < 12s needed`
	defer cancel()
	c.Complete(ctx, "x")
	s.Query(ctx)
}

// TwoPaths reaches the pipeline by two paths with different deadlines.
func TwoPaths(c *llm.Client) {
	fast(c)
	slow(c)
}

func fast(c *llm.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // want `deadline 30s \(set here\) < 72s needed` `deadline 30s is below the 40s p99`
	defer cancel()
	c.Complete(ctx, "fast")
}

func slow(c *llm.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	c.Complete(ctx, "slow")
}

// Each is generic.
func Each[T any](ctx context.Context, c *llm.Client, items []T) { // want Each:`needs 72s on param 0`
	for _, it := range items {
		c.Complete(ctx, fmt.Sprint(it))
	}
}

// Generic calls the generic function with 45s.
func Generic(c *llm.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second) // want `deadline 45s \(set here\) < 72s needed`
	defer cancel()
	Each(ctx, c, []int{1, 2})
}

// Handler is wrapped in http.TimeoutHandler with 30s.
func Handler(c *llm.Client) http.Handler {
	return http.TimeoutHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { // want `retry in llm.\(\*Client\).Complete can never start on this path: deadline 30s \(set here\) < 72s needed \(waits 7s, 11s; reserve 65s\); path: cases.Handler\$1 -> llm.\(\*Client\).Complete` `deadline 30s is below the 40s p99`
		c.Complete(r.Context(), r.URL.Path)
	}), 30*time.Second, "timeout")
}

// withBudget is a helper that returns the context it derives.
func withBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 35*time.Second) // want `deadline 35s \(set here\) < 72s needed` `deadline 35s is below the 40s p99`
}

// ViaHelper gets its deadline from a helper.
func ViaHelper(c *llm.Client) {
	ctx, cancel := withBudget(context.Background())
	defer cancel()
	c.Complete(ctx, "x")
}

// Refresh calls a pipeline that takes no context.
func Refresh(s *search.Index) {
	s.Refresh()
}
