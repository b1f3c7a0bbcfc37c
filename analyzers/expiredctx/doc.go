// Package expiredctx defines an Analyzer that reports cleanup and status
// writes that run on a context that has already expired.
//
// # Analyzer expiredctx
//
// expiredctx: cleanup or status writes that run on a context that has already expired
//
// When a worker's context is done, every call that takes that context fails
// at once with context.DeadlineExceeded or context.Canceled. Code that then
// tries to record the outcome (mark the item failed, release its lease,
// ack or nack the message, publish a result, roll back) on the same context
// records nothing: the write fails before it is sent, and the work item
// stays "in progress" with nothing left to pick it up. Cleanup after a
// timeout has to run on a fresh context, derived with context.WithoutCancel
// so it keeps the values (trace, tenant) but not the expiry, and with a
// timeout of its own.
//
// The analyzer knows that a context ctx is done:
//
//   - where ctx.Err() != nil, ctx.Err() == context.Canceled, and in the else
//     branch of ctx.Err() == nil (or after it, when that branch returns);
//   - where errors.Is(err, context.DeadlineExceeded) or context.Canceled, or
//     err == ctx.Err(), holds for an err returned by a call that was given
//     ctx as an argument (the context of that call is the one that expired),
//     including tagless switch cases and switch err { case context.Canceled: }.
//     Not when ctx only travels inside another value (client.Do(req) with
//     req.WithContext(ctx)) or the callee, declared in the same package,
//     puts a deadline of its own on it: that timeout is not ctx's. A
//     disjunction counts only when both sides name the same context;
//   - inside case <-ctx.Done(): of a select, and after a bare <-ctx.Done();
//   - in the deferred calls of a function that put a deadline on ctx
//     (context.WithTimeout, WithDeadline) or ran a retry bounded by ctx (a
//     retry layer of the retry model with ctx as its context): on the path
//     where the deadline or the retry ends the function, they run after ctx
//     expired; and in deferred calls registered before the defer cancel()
//     of their context, which runs first.
//
// It also knows where ctx may have expired without any test: in a function
// that puts a deadline on ctx (context.WithTimeout, WithDeadline), in the
// `if err != nil` branch of a call given ctx (or a context derived from it)
// whose error the branch tests: the next if, or a later one while the error
// is still the call's (assigned in between only inside `if err == nil`,
// the success path). The call may end an arm of an if (if pdf { key, err
// = w.pdf(ctx) } else { key, err = w.img(ctx) }): its error is tested
// after the if. Most code records every failure the same
// way, whatever it was; when the failure was the deadline, the record made
// on ctx fails at once too (a requeue after provider.Start timed out; a
// reconciler's status update after a call to the external API used up the
// reconcile's one-minute deadline). Not when the failing call and the
// write go to the same backend: the same client (r.client.Get, then
// r.client.Status().Update; two methods of the package's own type on one
// value, a worker's w.load(ctx) and w.setStatus(ctx), only when both use
// one client field of it, directly or through its other methods), or the
// same store package (a function or an
// interface implementation that writes through the same client library as
// the write): a backend too slow for one call is often too slow for the
// next, and a fresh context may not save the write. That exception is a
// choice for precision, not a proof: such writes are lost too
// (crossplane/crossplane#6571, a status update after a Get used up the
// deadline; keboola's fix f0bb6bd8, etcd writes after an etcd operation
// timed out), and those are missed. Without it the analyzer would report
// every kube API call of a reconciler that is followed by its status
// update. Nor when the failing call
// cannot run out of time: its callee in this package does nothing with its
// context, or, through an interface, every real implementation here does
// nothing with it (a configurator that only sets names), not counting
// adapters (a func type, a struct of func fields), chains that forward to
// the same method, and stubs (a type whose methods only return zero
// values, a Nop client); with no real implementation in sight the
// implementation is elsewhere, a plug-in point that may well be slow.
// A deadline the callers set counts when every call of the function is in
// sight and each one hands it a context its caller put a deadline on (a
// job wrapper's WithTimeout, then s.execute(ctx, job)): an unexported
// function that is only ever called, never taken as a value, and not a
// method an interface of the package could call. Otherwise a context
// received as a parameter, or read from a state bag, has a deadline the
// function does not know of. A job framework's worker is the exception
// where the deadline is known without a caller in sight: river runs
// Work(ctx, *river.Job[T]) under its JobTimeout (one minute unless the
// client's config says otherwise, or the worker's Timeout method returns
// a constant: positive is the deadline, negative none), and the AWS Lambda
// runtime calls a function handed to lambda.Start (StartWithOptions,
// NewHandler, ...) on a context that ends at the function's timeout.
//
// The failing call may be a method on the result of a call given ctx
// (op.Do(ctx).Err(), whose error is the operation's), or a call handed a
// request that carries ctx (hc.Do(req), req built by
// http.NewRequestWithContext(ctx, ...) as its only value; this holds for
// every rule below that asks for a call given a context). The statements that
// follow the call, up to the first that mentions its error variable (a
// test, a return, a log of it, a new value), are on its failure path too:
// a lock taken on ctx before the wait's error is looked at fails at once
// when the wait used up the deadline (keboola's closeFile, fix 5e83a81);
// function literals defined there are not run there and are not counted.
// On these failure paths, and only there, a call to a cleanup runner is
// work that must happen: a function that calls, in a loop over it, the
// function values held in a slice or map field of its receiver or of a
// parameter, whose last result is an error (closures registered by Add,
// run later), handing them its context parameter, or that hands it to such a
// runner (a fact, "runs Cleanup.fns with ctx param 0", so rollback's
// InvokeIfErr, Invoke and invokeOrErr in another package are runners of
// the container's callbacks). The closures are not visible at the call,
// but undoing work is I/O: a sandbox's cleanups or a rotation's rollbacks
// run on the expired ctx and fail (e2b's Create, fix 879161d; keboola's
// rotateFile, fix f0bb6bd8c). Not runners: closures run on a context of
// their own (WithoutCancel, Background), a single func field (an adapter,
// a middleware's next), one handler looked up by key (a dispatch table),
// listeners without an error result.
//
// There it reports a call that is given that context, or one derived from it
// without context.WithoutCancel, to work that must happen. What counts as
// such work is decided precisely, never by a method name on an arbitrary type:
//
//   - database/sql: ExecContext, BeginTx, and QueryContext/QueryRowContext
//     whose constant query starts with INSERT, UPDATE, DELETE, MERGE,
//     UPSERT or REPLACE. Tx.Commit and Tx.Rollback take no context: a
//     transaction begun on ctx is rolled back by database/sql when ctx is
//     done, so a later Rollback is harmless and is not reported.
//   - well-known stores and queues, by package and method: pgx (Exec,
//     Begin, CopyFrom, SendBatch, Tx.Commit; not Tx.Rollback, see below),
//     sqlx, gorm (Create, Save,
//     Update, Delete, Exec on the context bound by WithContext), go-redis (the
//     commands that write: Set, Del, HSet, LPush, XAdd, XAck, Publish,
//     Eval, ...), MongoDB (Insert, Update, Replace, Delete, BulkWrite),
//     kafka-go, amqp091, NATS JetStream, Pub/Sub, SQS/DynamoDB/S3 (aws-sdk-go-v2),
//     etcd, client-go and controller-runtime clients (Create, Update,
//     UpdateStatus, Patch, Delete), river, asynq, Temporal, redislock,
//     redsync; generated gRPC clients (methods ending in ...grpc.CallOption)
//     whose RPC name changes state (Create, Update, Delete, Respond, Complete,
//     Ack, Publish, ...); and (*http.Server).Shutdown, which returns at once on a done
//     context instead of draining requests;
//   - interface methods declared in the analysed module (a Store or Queue
//     interface: the implementation is not visible) whose name is one of
//     Exec, Update, Set, Save, Put, Insert, Upsert, Delete, Remove, Ack,
//     Nack, Publish, Send, Enqueue, Requeue, Release, Unlock, Rollback,
//     Complete, Finish, Fail, Mark, Commit, Store, Write, Add, Append,
//     Create, Flush, Persist, Upload (alone or followed by more words:
//     MarkDone, UpdateStatus) and that take a context first, except on
//     interfaces named for logging, tracing, metrics, events or caches;
//   - the project's own functions in any package, through a fact: a function
//     that passes its context parameter to such work (directly or through
//     another such function) "writes with its ctx parameter";
//   - etcd ops built as values: the client's Do(ctx, op), or a project
//     helper that hands its op parameter to it (a fact: "does etcd op param
//     N"), is a write where op is made by OpPut, OpDelete or OpTxn, followed
//     through variables, struct fields of literals and the package's
//     functions that return it (an operation layer's Txn or atomic op Do);
//     with an OpGet it is a read;
//   - a method of any interface whose implementation in this package or a
//     dependency writes with that context parameter (a NodePoolManager
//     whose Kubernetes implementation updates the node): some
//     implementation suffices, a fake for tests does not make it safe.
//
// Not reported: logging, tracing and metrics; reads; cache writes; calls
// that take no context; a context made fresh before the call
// (context.Background, WithoutCancel, or a function of any package whose
// every return is such a context, one derived from it, a struct whose
// Done comes from one, or what a WithValue helper makes of one: the
// model's Detaches, a fact across packages; a helper's name decides
// nothing);
// writes on the success path only (a deferred write guarded by err == nil)
// or the panic path only (under recover()); returning the error to the
// caller; the deferred calls of a test (a _test.go file), whose deadline is
// its own: when it passes the test has failed already, and no caller's
// item is left in progress.
//
// pgx's Tx.Rollback on a done context is not reported, deferred or not.
// Rollback sends "rollback" with that context; the send fails at once, and
// Rollback then closes the connection (dbTx.Rollback calls conn.die), so
// Postgres ends the session and rolls the transaction back, releasing its
// locks; a pool discards the closed connection. When the context expired
// during a query, pgconn has already closed the connection and Rollback
// fails with "conn closed" on any context, a fresh one included. A
// rollback on a detached context (river's RollbackWithoutCancel) saves a
// connection when the context expired between statements: a cost, not
// lost work, and a deferred Rollback is what pgx's Tx documentation
// recommends. (A savepoint's Rollback, on a pgx Tx begun inside another,
// does not close the connection: on a done context its writes stay in the
// outer transaction. That shape is not recognised yet.)
//
// A second rule reports a call given a context after that context's own
// cancel function has run on every path to the call: the context is then
// certainly done, and the call fails at once with context.Canceled (or
// DeadlineExceeded, for a WithTimeout context whose deadline came first).
// The cancel may run directly (cancel()), through a closure of the function
// that calls it before it can return (drain := func() error { cancel();
// ... }), through a function of the package given the cancel, or through a
// method of the package on the value that holds the cancel in a field
// (ctx, n.cancel = context.WithCancel(parent); n.stop()). The flow is read
// on the function's control-flow graph: every path from the
// context.WithCancel (WithTimeout, WithDeadline) to the call must run the
// cancel, with ctx and the cancel variable unchanged since. The call must
// fail on a done context and its error must be read:
//
//   - a method of an interface given the context and returning an error
//     (not on interfaces named for logging, tracing or metrics);
//   - a function of the standard library given the context and returning
//     an error (database/sql, net, (*http.Server).Shutdown; not
//     http.NewRequestWithContext, which only stores it);
//   - a function of the package that returns the error of such a call made
//     with its context parameter, or returns ctx.Err(). Functions of other
//     packages are not judged.
//
// Quiet: a fresh context after the cancel; a cancel on some paths only; the
// cancel of a child while the call uses the parent; defer cancel(); a
// cancel variable given another cancel first; ctx.Err(), Done and logging
// after the cancel; a call whose error is not read; a call whose error the
// code compares with context.Canceled or DeadlineExceeded (a test of the
// cancellation path); a context variable that a stored closure may
// reassign, or whose address is taken.
//
// A third rule reports a write inside a closure that captures a context
// its function cancels on the way out, when the closure escapes the
// function to run later. A closure sees a captured variable as it is when
// it runs; by then the function has returned and its defer cancel() (or a
// cancel() on every path after the escape) has cancelled ctx, so every run
// fails at once with context.Canceled (asynq's sync retries: the closure
// sent to the syncer calls the broker on the ctx markAsComplete
// cancelled). Escaping is taken narrowly, to what certainly outlives the
// call: the closure, or a value holding it (a composite literal, a pointer
// to one, a local it was stored in, the result of a constructor of the
// package), is sent on a channel, stored in a field, element or map entry
// reached from a parameter, the receiver or a package variable, appended
// to one, returned, or handed to a function of the package that does one
// of these with it. The write is recognised as above (the tables, the
// facts, an interface method whose implementation writes). Goroutines
// (go statements, errgroup.Go) and closures handed to any other function
// (a retry layer) are not escapes: a retry runs its closure before
// returning, and a goroutine that shares the function's context is, as a
// rule, meant to stop with it (a fan-out the function cancels when it is
// done). Quiet: a closure that makes or detaches its own context, or
// tests ctx itself (ctx.Err(), ctx.Done(): written to stop with it); one
// capturing a context the function does not cancel (its parameter, the
// parent of the one it cancels); a value that carries the context along
// with the closure (its consumer sees that it is done); a function that
// goes on after the escape: it waits (a receive, a select, a Wait, a
// deferred Wait: a worker that runs the closure and answers) or calls
// anything but its cancel, logging and formatting (a long-running loop
// or server that hands work out while ctx is live and cancels it when it
// stops; for an escape in a loop, the whole loop counts); a stored
// closure read back before the return; a cancel on some paths only; a
// context or cancel variable assigned twice; test files. No fix is
// offered: the closure needs a context of its own when it runs
// (context.WithoutCancel(ctx) with a fresh timeout).
//
// A fourth rule reports a fallback that shares one deadline: a loop the
// retry model takes for a fallback (each host, replica or model tried once,
// no wait, success leaves) whose calls are given a context the function put
// a deadline on before the loop. A host that hangs uses the whole deadline
// and every later one is tried on an expired context, where it fails at
// once: the fallback saves nothing in the case it is there for. Reported
// at the WithTimeout. Quiet when a deadline is set inside the loop,
// directly or in a function of the package it calls (a per-host timeout
// under an overall budget), when the loop's calls are given another
// context, and when they do nothing with it. No fix is offered: the
// timeout moves into the loop, and whether the old one stays as an overall
// budget is the author's choice.
//
// The same mistake written out once is reported too: a backup call, the
// same function or method as the call it stands in for, made in the
// `if err != nil` branch of that call, assigning the same error variable,
// and given the context of a deadline the function set before the first
// call (resp, err := c.fetch(ctx, primary); if err != nil { resp, err =
// c.fetch(ctx, backup) }). Reported at the WithTimeout. Quiet when the
// branch sets a deadline of its own or tests the context before the
// backup, when the second call is another operation (a cache miss read
// through to the store), when the deadline is the caller's, and when the
// first call does nothing with its context.
//
// The suggested fix inserts, before the statement,
//
//	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
//	defer cancel()
//
// and passes cctx to the call (adding the time import when needed). It is
// not offered for a direct defer statement, whose timeout would start when
// the defer is registered, nor on a context the function makes itself with
// WithTimeout, WithDeadline or WithCancel, or makes afresh on each turn of a
// loop: that is a per-attempt context the code times out on purpose (a
// pool's dial-recovery loop), and detaching the write from it changes what
// the loop does. The finding is still reported there. (It is offered for a
// write in the failure branch of a call under a deadline the function makes
// once, outside any loop: detaching that write is the fix.)
//
// Bad:
//
//	func (w *Worker) handle(ctx context.Context, id int64) error {
//		err := w.pipeline.Run(ctx, id)
//		if errors.Is(err, context.DeadlineExceeded) {
//			w.store.MarkFailed(ctx, id, "timeout") // fails at once: ctx has expired
//			return err
//		}
//		...
//	}
//
// Good:
//
//	if errors.Is(err, context.DeadlineExceeded) {
//		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
//		defer cancel()
//		w.store.MarkFailed(cctx, id, "timeout")
//		return err
//	}
package expiredctx
