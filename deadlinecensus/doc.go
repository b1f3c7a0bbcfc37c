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
// reserve; the time left may be time.Until(dl), dl.Sub(now), or a
// comparison of instants, now.Add(wait+reserve).Before(dl), with now a
// clock the code holds; when the guard reads a base wait that a pause
// then spreads below it, the first wait is that base), else from the
// first attempt's time (a per-attempt timeout or
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
// `retryvet census [-format text|markdown|json|html] [-baseline FILE
// [-update]] packages...` loads the whole program, builds SSA and a VTA
// call graph, and walks back from every pipeline to every entry (main,
// init, HTTP handlers, goroutines, exported functions whose context comes
// from outside, tests), following the context from the entry to the
// pipeline call. It prints a summary (pipelines, entry paths, verdicts yes
// / no / unknown, the most common reasons for unknown), then one row per
// entry path with the deadline and where it is set, whether the retry can
// start and whether the deadline covers the p99; every unknown verdict
// says why and what would decide it (a //retryvet:p99 directive, a value
// in .retryvet.yml, the callers' packages on the command line). Both use
// the same derivation of R (internal/deadline.Derive) and the same context
// tracing (internal/deadline.Tracer).
//
// # Tests
//
// Entries declared in _test.go files (tests, and methods of mocks nothing
// calls) are apart: text, markdown and HTML give each pipeline's tests one
// line (how many, the shortest deadline, how many are below the need)
// unless -tests lists them. A test whose deadline is below what the retry
// needs cannot observe the retry: it passes whether or not the code waits;
// give it a long deadline and a watchdog that fails early. The baseline
// gates them only with -gate-tests (off by default: a test's deadline
// shapes no production traffic, and gating tests makes every test
// refactoring a baseline edit).
//
// # Limits
//
// A pipeline with very many callers is walked within limits: -max-rows
// (1000 entry paths), -max-steps (200000 functions visited), -max-depth
// (40 functions on a path). The walk goes breadth first and takes callers
// in a fixed order (by name, package and call position), so a walk that
// hits a limit keeps the same rows on every run: the shortest paths, ties
// in that order read from the pipeline outward. Every format marks such a
// pipeline truncated and names the limit.
//
// # The baseline gate
//
// With -baseline FILE the census is the CI gate: exit 1 on an entry or a
// deadline place the baseline does not list, on a row whose retry cannot
// start (or whose deadline is below the p99) unless the baseline gives a
// reason, and on a required time or deadline that changed; -update
// rewrites the baseline, keeping the reasons. A row is keyed by the
// pipeline, the entry (closures not numbered: batch.Run (closure)) and
// the place where the deadline is set, written as the function and the
// call (queue.(*Worker).handle: context.WithTimeout(ctx, ItemTimeout)) or
// none, from caller, unknown: ...; a new func literal or a function moved
// within its file keeps every key. Rows of one key are one baseline row
// (the worst verdicts, the shortest path as information). The baseline
// records the limits it was written with; a truncated census is compared
// only with a baseline written with the same limits. A baseline of the
// first format (keyed by the whole path) is still read: its rows match by
// pipeline, entry and deadline, and -update rewrites it.
//
// Exit codes: 0 fine, 1 the gate failed (each failing row named), 2 usage
// or load error (a malformed baseline names its line and is left alone).
// A package with errors is reported and left out, with its importers; the
// rest is still censused and gated, and the exit is 2 even if the gate
// failed too.
package deadlinecensus
