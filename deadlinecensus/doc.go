// Package deadlinecensus defines an Analyzer that checks the deadlines that
// reach retried remote calls, and the `retryvet census` command that lists
// every caller of every pipeline with the deadline it sets.
//
// # Analyzer deadlinecensus
//
// deadlinecensus: a deadline set on a path to a pipeline that is shorter than the retry policy needs, or than the remote call's p99
//
// A pipeline is a function that performs a retried remote call: a retry
// layer around a remote call, an SDK call that retries by default, or a
// function marked //retryvet:pipeline. A deadline-aware retry starts
// another attempt only when the caller's remaining time covers the wait
// and what comes after it, so a caller that gives less time than that turns
// the retry into dead code: every refusal goes straight to the fallback,
// and no test or review of the pipeline's package sees it, because the
// deadline lives in the caller.
//
// What the retry needs (R) is derived from its policy: from the retry's
// own deadline guard (`if remaining < wait+reserve`: R = first wait +
// reserve), else from the first attempt's time (a per-attempt timeout or
// the declared //retryvet:p99) + the first wait + the second attempt's
// time. The analyzer reports at the place where a deadline is set
// (context.WithTimeout, WithTimeoutCause, WithDeadline(time.Now().Add(d)),
// WithDeadlineCause, http.TimeoutHandler around a handler whose request
// context reaches the pipeline) when the context reaches a pipeline, through any
// number of functions that pass it on, and the deadline is below R or
// below the pipeline's p99:
//
//	retry in llm.(*Client).Complete can never start on this path: deadline 40s (set here) < 72s needed (waits 7s, 11s; reserve 65s); path: queue.(*Worker).handle -> llm.(*Client).Complete
//	deadline 22s is below the 40s p99 of llm.(*Client).Complete: slow answers become errors and the backup is never asked; path: ...
//
// Durations fold through named constants, arithmetic, constants of other
// packages, single-assigned variables and config struct literal fields. The
// minimum on the path counts: an inner, longer timeout does not extend an
// outer one.
//
// Bad:
//
//	const ItemTimeout = 40 * time.Second
//
//	func (w *Worker) handle(item string) {
//		ctx, cancel := context.WithTimeout(context.Background(), ItemTimeout) // the retry needs 72s
//		defer cancel()
//		w.llm.Complete(ctx, item)
//	}
//
// Good: derive the deadline from the policy, in one place, for every path
// that starts the pipeline:
//
//	ctx, cancel := context.WithTimeout(context.Background(), llm.RequestBudget) // >= 72s, derived from the policy
//
// # The analyzer and the census
//
// Under go vet and golangci-lint the analyzer sees one package at a time
// and facts flow only up the import graph. A pipeline exports a fact
// ("needs at least 72s left on its ctx parameter"), every function that
// passes its own context parameter to it exports the same need, and the
// check happens where a deadline is created. That covers static calls,
// method calls, closures (goroutines included) and generic functions, and
// calls through an interface whose package declares the implementations
// (the interface method carries the least need of its implementations).
// What it cannot see: interface calls to implementations declared
// elsewhere, functions passed as values and called by other packages,
// retries whose operation is behind an interface (the model cannot tell it
// is remote), contexts kept in struct fields, and entries that set no
// deadline (nothing to report where nothing is set).
//
// `retryvet census [-format text|markdown|json] [-baseline FILE [-update]]
// packages...` loads the whole program, builds SSA and a VTA call graph, and
// walks back from every pipeline to every entry (main, init, HTTP handlers,
// goroutines, exported functions whose context comes from outside, tests),
// following the context from the entry to the pipeline call. It prints one
// row per entry path with the deadline and where it is set, whether the
// retry can start and whether the deadline covers the p99. With -baseline
// it is the CI gate: exit 1 on an entry path the baseline does not list, on
// a row whose retry cannot start (or whose deadline is below the p99)
// unless the baseline gives a reason, and on a required time or deadline
// that changed; -update rewrites the baseline, keeping the reasons. Both use
// the same derivation of R (internal/deadline.Derive) and the same context
// tracing (internal/deadline.Tracer).
package deadlinecensus
