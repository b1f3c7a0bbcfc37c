// Package retrytimeout defines an Analyzer that checks the time behaviour
// of retries.
//
// # Analyzer retrytimeout
//
// retrytimeout: attempt-only retries, counts never stepped, no jitter, Retry-After ignored, uncancellable waits, per-attempt timeouts below p99 or that end the retry, context errors retried, schedules longer than their budget, total timeouts on streaming calls, and waits that never happen (a break that leaves only the select, an exponential wait that wraps, a zero timeout)
//
// Four attempts with exponential backoff can take fifteen seconds while
// the request that started them had ten; without jitter every client that
// failed together retries together; a Retry-After header is better
// information than any curve; and a timeout shorter than the dependency's
// real p99 is a load generator, not a safety mechanism. The analyzer reads
// each retry layer of the shared retry model (hand-rolled loops, retry
// libraries, retrying HTTP clients, SDKs) and reports the findings below, each
// with the numbers that make it true.
//
// attempt-only retry: a retry bounded only by an attempt count. Nothing
// checks the caller's deadline before waiting (ctx.Err, a select on
// ctx.Done, ctx.Deadline or time.Until), and no overall limit applies
// (MaxElapsedTime, a context timeout passed to the library). When the
// waits are known the message gives the worst case they add up to; when
// each wait is one of a few constants (a switch on the attempt), it gives
// them and the bound they make ("each wait 1s, 2s or 4s ... up to 12s").
// A loop that also waits after its last failed attempt (the wait follows
// the attempt, the count is tested only in the for clause, and nothing on
// the way tests the counter) spends that wait too before the caller sees
// the error: it is named ("then 4s after the last failure") and counted
// in the worst case. The one-second floor reads the waits between
// attempts: a schedule that short is bound enough by its count.
// Where the attempt count is not known, messages list only the first
// waits and say so. A loop that waits at several places for different
// times (1s after a network error, 2s after a 429) is described by its
// choices ("each wait 1s or 2s", up to the longest for every wait), and
// the budget finding, which needs one schedule, is left out for it.
// Schedules whose known waits total under a second are left alone: an
// attempt count is bound enough there. So are retries that do not wait
// between attempts: they spend only the attempts' own time, which the
// operation's context bounds. The finding needs a caller's deadline to
// overrun: a retry with nothing in scope that can be done (no context, no
// request, no done channel; a command's upload, a worker's own loop, a
// helper handed no context) or bound on purpose to a context that can
// never be done (backoff.WithContext(b, context.Background()), a pool's
// own lifetime) is left alone, since its attempt count is the bound it can
// have ("a background job can wait a minute", seed 001). On real code
// such retries were judged fine every time (7 of 7 on the own set).
// Where a context is in scope and the wait ignores it, the clause is
// carried by the uncancellable-wait message at the wait.
// The same one-second floor applies to the
// jitter and cancellation findings: waits a few milliseconds apart neither
// synchronise a herd nor keep a cancelled caller waiting. Waits read from a
// package variable that a _test.go file reassigns (retryDelay = 0 in a
// test) are judged at the variable's declared value: what a test assigns
// never changes a verdict on production code.
//
// count never stepped (category still-counter): a retry loop whose for
// clause tests a local count against a constant (for retries < 5) that the
// function never changes after declaring it (no ++, no assignment, no
// address taken): the test reads as a bound but never ends the loop, which
// goes round for as long as the operation fails. The model reads such a
// loop's attempts as if the test were absent (unbounded, unless the body
// bounds it otherwise), so no other finding quotes the false bound. Quiet
// when the count is stepped anywhere in the function (in the body, in the
// clause, through a pointer handed to a helper) or when the bound is a
// variable the loop changes.
//
// no jitter: the waits are a fixed function of the attempt (constant,
// 1<<i, base*factor^i) with no random part, or a library is configured
// without jitter (backoff RandomizationFactor 0, retry-go with a delay type
// that has no RandomDelay, go-retry without WithJitter, wait.Backoff with
// Jitter 0, retryablehttp's DefaultBackoff). Only retries the model knows
// to be remote are reported (a herd forms against a shared service, not
// around a local lock; net/http requests whose every URL names this machine,
// localhost, 127.x or ::1, are not remote: a readiness poll of a proxy or
// daemon a test harness just started), and unbounded retries only when
// their waits grow:
// an unbounded loop at a constant interval is a poll (waiting for a server
// to come up).
// Jitter is decided by data flow, not by names: a wait has
// jitter when a random source (math/rand, crypto/rand, a clock's low
// digits) reaches its duration through locals, helpers, results and
// fields; a "jitter" that is a constant share of the backoff has none. A
// wait that a Retry-After read replaces is judged by the schedule of the
// clients the server sent no hint (2.4s, 4.8s, ... when the server sends
// no Retry-After); a delay set at construction and never changed by the
// loop is reported as the same wait before every attempt, also when the
// attempt count is a field. A wait computed by a function the client keeps
// in a field (time.Sleep(c.backoffFunc(retries))) is judged by the
// function the package's constructor gives that field (backoffFunc:
// ExponentialBackoff(2, 500*time.Millisecond), a factory of the package
// returning a literal, or a literal), when it is the only default: the
// finding is at that default and says the caller may replace it; two
// constructors with different defaults, or only the caller's function,
// fold nothing.
//
// retry-after ignored: a retry that retries a 429 or 503 read from an
// *http.Response, a retryablehttp response, or an SDK error that carries
// the response (openai-go's and anthropic-sdk-go's *Error), and computes
// its wait without reading Retry-After or retry-after-ms. retryablehttp's
// DefaultBackoff and RateLimitLinearJitterBackoff honour it; its
// LinearJitterBackoff does not.
//
// retry-after read only on 429: a function reads Retry-After only in a
// branch taken for 429 (the model evaluates the status tests around the
// read), while 503 is retried too: in the same function a branch for 503
// returns the same retry result without reading the header (reported
// there), or, for a function that computes a wait, a retry policy of the
// package returns true for 503 (reported at the 429 test). A server that
// sheds load answers 503 with Retry-After, and the client comes back on its
// own schedule instead.
//
// retry hint read as nanoseconds: a number parsed from Retry-After
// (seconds) or retry-after-ms (milliseconds) with strconv, carried through
// locals and fields, and converted with time.Duration(n) that no unit
// multiplies, at the conversion or later: Retry-After: 10 waits 10ns. It
// is reported wherever the conversion is, since the retry that waits it is
// often in another package; the suggested fix multiplies by the unit.
//
// wait ignores cancellation: time.Sleep (or a bare <-time.After, a select
// on timers only, a sleep helper that ignores its context, whether handed
// the duration or working it out from the attempt (pause(attempt)), called
// directly or through an interface whose one implementation in the package
// it is, a func field or variable the package gives only such sleepers, as
// r.sleep set to time.Sleep) between attempts, where the code can observe a cancellation
// that can happen. What can cancel it is the retry model's answer, by
// where values come from: a context variable in scope, an *http.Request
// it was handed (req.Context()), or, one or two fields down from the
// receiver or a parameter, a context field (a generated client's
// r.ctx), a request, or a value with a Done() channel (a project's own
// context-like type, or an interface with a context's Done and Err: a
// framework's Context interface, whose implementations are not read), or a method that gives out its receiver's context
// (job.Context(), also of another package's type); or a <-chan struct{}
// parameter (a stopCh, the caller's cancellation as a ctx parameter is).
// A chan struct{} field closed by the value's Close or Stop is its
// lifetime, not a caller's cancellation, and is not taken; so is an
// unexported context field whose every value the package makes itself
// with context.WithCancel on a context that is never done (a session's
// own context, cancelled when it is closed), and when a retry's attempts
// run on such a field nothing else in scope is taken. A context that can
// never be done is left alone: context.Background(), context.TODO(),
// context.WithoutCancel(x) and context.WithValue on any of them, a field
// only ever given one, a request built with http.NewRequest; so is a
// wait reached only when ctx.Done() is nil (the documented sign of a
// context that is never cancelled), and a func field whose values the
// package does not see (set from a parameter). A suggested fix rewrites
// `time.Sleep(d)` into
//
//	select {
//	case <-ctx.Done():
//		return ..., ctx.Err()
//	case <-time.After(d):
//	}
//
// naming the source as the code spells it (r.ctx.Done(), p.stop.Done()),
// returning the function's named results as they stand (zero values for
// unnamed ones) and the source's Err() as its error; a function without results
// simply returns. When the last result is not an error the finding is
// reported without a fix. When the same retry is also attempt-only, the
// one message says both, since the rewrite fixes both. A retry library
// whose waits are timers of its own is reported at its call when they
// are not bound to a context that can be done while one is in scope:
// cenkalti/backoff's Retry with a backoff not wrapped by
// backoff.WithContext, retry-go's Do without retry.Context, apimachinery's
// wait.ExponentialBackoff, buildkite/roko's (*Retrier).Do (it runs on
// context.Background()). The suggested fix binds it the library's way
// (backoff.WithContext(b, ctx); a retry.Context(ctx) option;
// DoWithContext(ctx, ...)). Waits the package's
// own constructor sets by default (an exported RetryInterval, a schedule
// slice indexed by the attempt, that a caller may replace) are judged like
// known ones when nothing else folds them: under a second in all is
// quiet, and the message gives them ("by default waits 1s, 2s, 4s").
//
// wait overflows (category wait-overflow): a wait computed as scale ×
// 2^attempt (scale << attempt, scale * time.Duration(1<<attempt), a
// one-return helper such as (1<<a)>>1, math.Pow(2, attempt)) with no bound
// on the exponent, in a function whose attempts the caller chooses (an
// exported function, or a closure an exported function builds: a
// library's backoff). From some attempt on the product passes the largest
// time.Duration and wraps to a negative or zero wait; a cap applied to the
// result afterwards (if d > max) does not catch it. The message gives the
// attempt for the scale the code sets, or for 100ms and 1s when the scale
// is the caller's. Quiet when the exponent is compared or clamped (attempt
// > 30, min(attempt, 30)) or the result tested for <= 0 in the function.
//
// a bare number given as a wait (category wait-unit): an untyped integer
// literal under 1000 passed where a retry library's function takes a
// time.Duration (failsafe-go's WithBackoff(2, 2*time.Second), retry-go's
// Delay(100)) is that many nanoseconds: the attempts go out back to back
// (for a jitter, the waits get no spread). No fix is offered: the unit
// meant is the author's.
//
// a zero timeout that is no limit elsewhere (category zero-timeout):
// context.WithTimeout(parent, opts.Timeout) where the package uses the
// same duration field only when it is positive (if opts.Timeout > 0 {
// hc.Timeout = opts.Timeout }): zero means "no limit" there, and here a
// context done before the first call. Quiet under the same test, after an
// early return on a zero value, and for a field the package replaces with
// a default when zero.
//
// a break that leaves only the select (category select-break): in a
// loop's wait, `case <-ctx.Done(): break` (unlabelled, or to a label on
// the select) ends the select, not the loop; once the context is done the
// case is ready at once on every later turn and the loop runs its
// remaining attempts back to back. Reported for a wait (the select has a
// timer case) in a loop that makes a fallible call, when nothing else in
// the loop reads the context's Err, Done or Deadline, nothing after the
// select leaves the loop, and the case sets no flag read after it; a
// retry layer is not needed. With a label on the loop the suggested fix
// breaks to it.
//
// per-attempt timeout below p99: an http.Client Timeout, a per-attempt
// context.WithTimeout or an SDK request timeout shorter than the p99
// declared with //retryvet:p99 on the function the retry calls (or the
// default p99 setting, for a remote call without one): every slow call
// times out and is retried while the server still works on the first.
//
// schedule longer than its budget: the known waits exceed the retry's own
// limit (MaxElapsedTime, the timeout of the context it was given, set in
// the same function), so the last attempts can never start. The message
// names the last attempt that can, counting every attempt as failing at
// once.
//
// total timeout on a streaming call: an http.Client Timeout or a context
// timeout set in the same function on a response read event by event in a
// loop (SSE: the function asks for text/event-stream or the loop parses
// "data:" lines; NDJSON: a json.Decoder over the body), or on an SDK
// streaming method (NewStreaming of openai-go and anthropic-sdk-go, with a
// context timeout or option.WithRequestTimeout; bedrockruntime's
// ConverseStream), where an inactivity timeout is meant: a long answer is
// cut off while it is still arriving. A download read line by line is not
// a stream of events and is left alone, and so is a total timeout of ten
// minutes or more (a guard against a hung connection, not a budget). The
// body is followed into the package's functions it is handed to (a save
// helper that copies it in a loop), and a loop that hands the byte counts
// it reads to a callback (a progress report) is a long transfer by its
// author's own account: a blob download through a client with a 5m
// Timeout. A Timeout computed from a config value copied into the
// client's field (time.Duration(g.timeout) * time.Second) is folded to
// that value's default and said to be one.
//
// one attempt's timeout bounds the whole retry: a context.WithTimeout made
// once, outside a retry, whose context every attempt of the retry runs on
// (a loop or library bound to it, or a function called with it that
// retries on the context it is given, seen across packages through the
// model's facts), with a duration that is the budget of one attempt: the
// package uses the same field or constant as the per-attempt timeout of
// another retry, or it is named for one attempt (AttemptTimeout,
// PerTryTimeout, or DialTimeout around a retried dial). An attempt that
// hangs spends it and no retry follows (a pool's dial retry of five
// attempts under one DialTimeout). A total budget (a field used and named
// for nothing in particular, RetryTimeout), a retry whose attempts have a
// shorter timeout of their own, and a single call are quiet.
//
// per-attempt timeout ends the retry, shared argument: a retry runs a
// function value again on the same argument (h(msg) in a retry
// middleware), and the package holds a function of that type that
// replaces the argument's context through its setter (msg.SetContext)
// with one it derives and cancels when it returns (a Timeout middleware).
// Run inside the retry, it leaves the argument on a done context, and
// every later attempt starts on it. A retry that sets the argument's
// context before each attempt, a copy per attempt, and a middleware that
// puts the old context back are quiet.
//
// per-attempt timeout ends the retry: a loop makes a context with its own
// deadline for each attempt (context.WithTimeout inside the loop) and,
// before the retry decision, leaves the loop when that deadline has passed:
// `if actx.Err() != nil { return ... }` on the per-attempt context, or
// errors.Is(err, context.DeadlineExceeded) on the error of the call it was
// handed (an attempt that hits its own timeout fails with exactly that).
// One slow attempt then ends the whole retry, which is the failure the
// per-attempt timeout was there to retry. A test of the caller's context,
// or a condition that also requires it to be done, is quiet; so is a
// DeadlineExceeded that is retried, and one in a loop with no per-attempt
// deadline (it is the caller's). Only hand-rolled loops are read. A
// per-attempt context that overwrites the caller's variable (ctx, cancel =
// context.WithTimeout(ctx, d), tested as ctx != nil && ctx.Err() != nil)
// is the same mistake; the message then says to keep the caller's context
// in a variable of its own.
//
// retries a cancelled/expired context's error: the loop's classifier
// helper answers retry for context.Canceled or context.DeadlineExceeded
// (every non-API error retried, a context's included) while the loop's
// context is the caller's (a ctx in scope that can be done, or the sent
// request's Context()): a request whose caller gave up is sent again. The
// model evaluates the helper with err set to the context's error, no
// response and attempts left; an answer it cannot prove (a method of the
// error, an assertion to an interface such as net.Error, which
// DeadlineExceeded satisfies) is quiet. A loop that classifies inline, with
// no helper, is read the same way: after the call handed the loop's
// context (or the request that carries it: hc.Do(req), the caller's
// context in req.Context()) fails with the context's error, the
// statements that follow are
// evaluated (a type assertion to one of the package's error types fails,
// errors.Is with another sentinel is false) and the loop goes round when
// they reach a continue or the end of the body: `if _, ok :=
// err.(ServiceError); ok { return err }` leaves on the server's answers
// and sends a cancelled caller's request again. Reported at the first
// test of the error's class, and only for a loop that has one: a loop
// that retries every failure alike is the attempt-count question. Quiet
// when the loop's condition or the body before the call tests the
// context, when any test on the way cannot be decided, and when the wait
// is cancellable.
//
// defer cancel() in a retry loop (category deferred-cancel): the turn
// derives a context for its attempt (context.WithTimeout, WithDeadline,
// WithCancel) and defers its cancel, which runs when the function
// returns, not when the attempt ends: every attempt's context and timer
// stay alive until the retry is over. Quiet when the function returns
// what an attempt may still be reading (an *http.Response, a reader, a
// stream), whose context must outlive the call, and for a deferred
// function literal (how code hands the cancel on to such a value).
//
// defer cancel() before the read (category cancel-before-read): a
// function that holds a retry and returns what the caller still reads (an
// *http.Response, a reader, a stream) defers the cancel of the context its
// requests are made on (context.WithTimeout, or a helper that returns a
// context and its cancel): the cancel runs as the function returns, before
// the caller reads the body, and the read fails with context canceled
// (okta-sdk-golang's fix ef048782; a gRPC stream interceptor whose
// returned stream dies at once). Quiet when the cancel is handed on (a
// body whose Close calls it, a deferred function literal) and when the
// function returns what it has read.
//
// One diagnostic per kind and retry, at the place to edit: the loop or
// library call for attempt-only retries, the wait (or the option that
// turns jitter off) for jitter, the 429/503 test for Retry-After, the wait
// for cancellation, the timeout for p99, the attempt bound for the budget,
// the call for streaming, the condition for a per-attempt deadline, the
// classifier's test that answers retry for a context's error.
//
// Quiet by design: loops with jitter, a cancellable wait and Retry-After
// read; tickers, pollers (loops that repeat after a success) and
// pagination, which the retry model does not count as retries; retries in
// _test.go files and in main or init before any context exists; SDK
// retries of openai-go, anthropic-sdk-go and aws-sdk-go-v2 (jittered,
// bound to the call's context, Retry-After honoured); cenkalti/backoff v4
// and v5 with their defaults (RandomizationFactor 0.5, MaxElapsedTime 15m);
// client-go's retry.DefaultRetry and retry.DefaultBackoff (jitter 0.1,
// waits that total well under a second). avast/retry-go's defaults have
// jitter but neither a context nor an elapsed limit: without
// retry.Context(ctx) they are reported as attempt-only. A conflict retry
// (one that retries only 409, IsConflict, codes.Aborted or SQLSTATE 40001
// and stops on every other failure) re-reads after a lost race and spreads
// no crowd of failed clients: no jitter or cancellation finding. An
// attempt whose first call takes the caller's ctx and stops the retry
// when it fails (if err != nil { return backoff.Permanent(err) }) ends the
// retry within one wait of ctx being done: not attempt-only.
//
// Bad:
//
//	for attempt := 0; attempt < 4; attempt++ {
//		resp, err := client.Do(req)
//		if err == nil && resp.StatusCode != http.StatusTooManyRequests {
//			return resp, nil
//		}
//		time.Sleep(time.Second << attempt) // no jitter, ignores ctx, ignores Retry-After
//	}
//
// Good:
//
//	for attempt := 0; attempt < 4; attempt++ {
//		resp, err := client.Do(req.WithContext(ctx))
//		if err == nil && resp.StatusCode != http.StatusTooManyRequests {
//			return resp, nil
//		}
//		wait := time.Duration(rand.Int64N(int64(time.Second << attempt)))
//		if resp != nil {
//			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
//				wait = time.Duration(s) * time.Second
//			}
//		}
//		select {
//		case <-ctx.Done():
//			return nil, ctx.Err()
//		case <-time.After(wait):
//		}
//	}
package retrytimeout
