package retrymodel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"time"

	"github.com/retryvet/retryvet/internal/durconst"
)

// Kind says what makes something a retry layer.
type Kind int

const (
	// Loop is a hand-rolled retry: a for loop, a goto loop, or a function
	// that calls itself again after a wait.
	Loop Kind = iota + 1
	// Library is a call to a retry library: backoff.Retry, retry.Do,
	// retry.OnError, wait.ExponentialBackoff, ...
	Library
	// Client is a call through an HTTP client that retries by itself:
	// a *retryablehttp.Client, or an *http.Client built by StandardClient().
	Client
	// SDK is a call to an SDK method that retries by default (openai-go,
	// anthropic-sdk-go, aws-sdk-go-v2).
	SDK
	// Reissued is a retry without a loop: a dispatcher (the Bubble Tea
	// runtime) hands the failure back to code that runs the operation
	// again (reissue.go).
	Reissued
)

func (k Kind) String() string {
	switch k {
	case Loop:
		return "retry loop"
	case Library:
		return "retry library"
	case Client:
		return "retrying HTTP client"
	case SDK:
		return "SDK retry"
	case Reissued:
		return "re-issued retry"
	}
	return "retry"
}

// Tri is a yes/no/unknown answer.
type Tri int8

const (
	Unknown Tri = iota
	Yes
	No
)

// Not, And and Or are three-valued logic: Unknown wherever the known
// operands do not decide the result.
func (t Tri) Not() Tri {
	switch t {
	case Yes:
		return No
	case No:
		return Yes
	}
	return Unknown
}

func (t Tri) And(u Tri) Tri {
	switch {
	case t == No || u == No:
		return No
	case t == Yes && u == Yes:
		return Yes
	}
	return Unknown
}

func (t Tri) Or(u Tri) Tri {
	switch {
	case t == Yes || u == Yes:
		return Yes
	case t == No && u == No:
		return No
	}
	return Unknown
}

func (t Tri) String() string {
	switch t {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "unknown"
}

// A Value is a duration or count the code fixes, with where it came from.
// Known is false when the code sets it but it cannot be folded; Set is false
// when the code does not set it at all.
type Value struct {
	Set     bool
	Known   bool
	N       int64         // counts
	D       time.Duration // durations
	F       float64       // factors, fractions
	Pos     token.Pos     // where it is written (NoPos for library defaults)
	Default bool          // the value is a library or SDK default, not written in the code
}

// Policy is what the code fixes of a retry layer's behaviour. Every field
// is as far as the code fixes it; nothing is guessed.
type Policy struct {
	// Attempts is the total number of attempts, the first included.
	// Attempts.N == 0 with Known means unbounded (loop until success or a
	// deadline).
	Attempts Value

	// Waits is the wait schedule between attempts: Waits[i] is the wait
	// before attempt i+2. Only the known prefix is listed; WaitsKnown says
	// whether the schedule is fully known up to Attempts-1 waits (or the
	// first few waits for unbounded retries).
	Waits      []time.Duration
	WaitsKnown bool
	// WaitsAtLeast: each wait is at least the one listed (the code raises
	// it above the schedule, as to a Retry-After); the list is the least
	// the retry waits, so the time it needs to start is exact as a minimum.
	WaitsAtLeast bool
	// WaitsAfterLast: the loop also waits after its last attempt fails,
	// before it gives up (lastwait.go); LastWait is that wait when known
	// (0 otherwise). It is time no attempt uses, spent before the caller
	// sees the error.
	WaitsAfterLast bool
	LastWait       time.Duration
	// WaitsUpTo, when a random part spreads the waits, is the most each
	// wait of Waits can be (Waits[i] to WaitsUpTo[i]); nil otherwise.
	WaitsUpTo []time.Duration
	WaitPos   token.Pos // the wait call or the library option that sets it
	// HintlessWaits is the schedule of a loop whose computed wait a
	// Retry-After read replaces (Waits is then empty): the waits of the
	// clients the server sent no hint, folded outside the branches that
	// read the header.
	HintlessWaits []time.Duration
	// ProdWaits is the schedule folded with the production values of
	// package variables the tests reassign, when the wait reads one
	// (prodwaits.go); nil otherwise.
	ProdWaits    []time.Duration
	ProdLastWait time.Duration // the production LastWait
	// DefaultWaits is the schedule folded with the defaults the package
	// gives exported config fields (a constructor's RetryInterval that a
	// caller may replace), when Waits are not known without them; nil
	// otherwise.
	DefaultWaits []time.Duration
	// DefaultFuncAt is where the default of a func field that computes
	// the wait is set (a constructor's backoffFunc: ExponentialBackoff(2,
	// 500ms)), when DefaultWaits come from it; DefaultSpread says the
	// default waits have a random part; DefaultMore that the attempts
	// have no bound even by default, so DefaultWaits are the first few.
	DefaultFuncAt token.Pos
	DefaultSpread bool
	DefaultMore   bool
	// FixedWait names the field or variable every wait of a loop waits
	// when its value is not known statically but the loop never changes
	// it (a delay set at construction): "" otherwise.
	FixedWait string
	// Schedule describes the shape: "constant 2s", "exponential 1s*2^i, cap 30s",
	// "library default (backoff v4: 500ms*1.5^i, ±50%, cap 60s)".
	Schedule string

	// Jitter says whether waits have a random part.
	Jitter    Tri
	JitterPos token.Pos

	// DeadlineAware is Yes when the layer stops before waiting once the
	// caller's deadline or cancellation makes another attempt pointless:
	// a ctx.Err/ctx.Done check, a select on ctx.Done around the wait, a
	// ctx.Deadline/time.Until guard, a library bound to ctx.
	DeadlineAware Tri
	DeadlinePos   token.Pos
	// WaitCancellable is No when the wait is a time.Sleep (or equivalent)
	// that ignores ctx.
	WaitCancellable Tri
	// BindWith names the library's own way to bind its waits to a context
	// when they are not ("backoff.WithContext", "retry.Context",
	// "wait.ExponentialBackoffWithContext"); "" otherwise.
	BindWith string

	// Guard is the retry's own deadline guard, when it has one:
	// `if remaining < wait + reserve { give up }`.
	Guard *Guard

	// MaxElapsed is the layer's own wall-clock limit (MaxElapsedTime, a
	// context.WithTimeout in the same function that bounds the retry).
	MaxElapsed Value

	// RetryAfter is Yes when the layer reads Retry-After / retry-after-ms
	// (or the library does by default).
	RetryAfter    Tri
	RetryAfterPos token.Pos

	// Classifier is the expression or function that decides whether a
	// failure is retried: a condition on err/status in the loop, a RetryIf,
	// CheckRetry or OnError predicate. Nil when every failure is retried.
	Classifier     ast.Node
	ClassifierFunc *types.Func
	// Codes is a classifier given as data (library_data.go): the status
	// codes an option retries (RetryOnStatus: []int{502, 503}). Nil else.
	Codes *CodeSet
	// StillCounter is a for clause's count test (retries < 5) whose
	// variable the function never changes after declaring it: the loop
	// does not end on it (Attempts is read as if it were absent). Nil
	// otherwise.
	StillCounter *ast.BinaryExpr
	// ConflictOnly is the classifier's conflict test when the layer
	// retries only conflicts (409, IsConflict, codes.Aborted, 40001) and
	// stops on every other failure (conflict.go); NoPos otherwise.
	ConflictOnly token.Pos
	// CtxEnds is the first call of each attempt when it takes the
	// caller's context and its failure stops the retry: a done ctx then
	// ends the retry within one wait (conflict.go). NoPos otherwise.
	CtxEnds token.Pos
	// Decisions are the conditions in the retried region that test the
	// operation's error or response and choose between another attempt and
	// giving up (or returning the result).
	Decisions []ast.Expr

	// PerAttempt is a per-attempt timeout: context.WithTimeout inside the
	// loop body, an http.Client Timeout of the client used by the operation.
	PerAttempt Value
	// AttemptCtxEnds is where the body tests the per-attempt context
	// (attemptCtx.Err() != nil) and leaves the retry: one attempt that runs
	// out of its own timeout then ends every retry after it. NoPos if none.
	AttemptCtxEnds token.Pos
	// AttemptDeadline is that test, with the contexts (attemptctx.go).
	AttemptDeadline *AttemptDeadline
	// Fallback is the fallible call the function makes after the loop
	// gives up (a backup model, another region): part of what a guard's
	// reserve pays for. NoPos if none.
	Fallback token.Pos

	// Listener is where a library is given a hook called on each retry
	// decision (failsafe-go's OnRetry, OnRetryScheduled, OnFailure on the
	// retry policy); NoPos otherwise.
	Listener token.Pos

	// Assumed is set when values come from a library or SDK default because
	// the code that configures the client could not be found.
	Assumed bool
	// Notes are short facts about how the policy was derived, for messages
	// and the census ("client built at llm/client.go:18").
	Notes []string
}

// Guard is a deadline guard: another attempt starts only when the time
// left covers Wait + Reserve.
type Guard struct {
	Pos     token.Pos
	Expr    ast.Expr
	Reserve Value // the constant part beyond the wait (65s in the incident)
	// IncludesWait: the guard adds the next wait to the reserve, so the
	// time needed before the first retry is Waits[0] + Reserve.
	IncludesWait bool
	Text         string
	// WaitExpr is the guard's own reading of the wait (the argument it
	// adds the reserve to), when that is a value of the loop and not the
	// wait site's duration: a base wait that a pause helper then jitters.
	// FirstWait is what it folds to on the first turn (Known false when
	// it does not fold); AtLeast: raised above that by a hint.
	WaitExpr  ast.Expr
	FirstWait Value
	AtLeast   bool
}

// A Layer is one retry layer found in the package being analysed.
type Layer struct {
	Kind Kind
	// Name says what it is in a message: "retry loop", "backoff.Retry",
	// "retry.Do", "retryablehttp.Client.Do", "openai Chat.Completions.New".
	Name string
	Pos  token.Pos // the loop keyword, the label, the call
	// Node is the *ast.ForStmt, *ast.RangeStmt, *ast.LabeledStmt (goto
	// loops), *ast.FuncDecl (recursion) or *ast.CallExpr (library, client,
	// SDK) that makes the layer.
	Node ast.Node
	// Func is the function the layer is written in (nil at package level);
	// FuncNode its *ast.FuncDecl or *ast.FuncLit.
	Func     *types.Func
	FuncNode ast.Node
	// Body is the retried region: the loop body, the closure handed to the
	// library, the recursive function's body. Nil for clients and SDKs.
	Body ast.Node
	// Ops are the calls the layer repeats: the fallible calls in Body (for
	// loops and libraries), or the call itself (clients and SDKs).
	Ops []*ast.CallExpr
	// OpFuncs are functions handed to a library as the operation by name
	// (backoff.Retry(c.search, b)) rather than as a literal.
	OpFuncs []*types.Func
	// Waits are the calls that wait between attempts (time.Sleep, a select,
	// a timer, NextBackOff).
	Waits []ast.Node
	// Context is the context expression the layer is bound to, if any.
	Context ast.Expr
	// Remote is Yes when the repeated operation is a call to a remote
	// service (an HTTP request, an SDK call, a gRPC method, a function
	// known to make one).
	Remote Tri
	// ClientPos is where the client of a Client/SDK layer was built, when
	// the model followed it there; ClientPosn the same as dir/file.go:line
	// when the client was built in another package (known from a fact).
	ClientPos  token.Pos
	ClientPosn string
	// OpParam is the operation when it is a func parameter of the
	// enclosing function handed on as it is (retry.Do(fn, opts...)): that
	// function is then a retry helper (handoff.go).
	OpParam *types.Var
	// HelperOf is, for a call of a retry helper of this package (a
	// HelperLayers entry), the helper's own layer.
	HelperOf *Layer

	Policy Policy
}

// Attempts returns the total attempts and whether it is known and bounded.
func (l *Layer) Attempts() (int64, bool) {
	a := l.Policy.Attempts
	if !a.Known || a.N <= 0 {
		return 0, false
	}
	return a.N, true
}

// A Fallback is a loop over different endpoints or models that tries each
// once without waiting. It is not a retry; it is recorded so analyzers can
// say so.
type Fallback struct {
	Pos  token.Pos
	Node ast.Node
	Ops  []*ast.CallExpr
}

// Shorten renders a position as dir/file.go:line, the form messages use.
func Shorten(fset *token.FileSet, pos token.Pos) string {
	if !pos.IsValid() {
		return "?"
	}
	p := fset.Position(pos)
	return fmt.Sprintf("%s:%d", shortFile(p.Filename), p.Line)
}

func shortFile(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	parts := strings.Split(name, "/")
	if len(parts) >= 2 {
		return parts[len(parts)-2] + "/" + parts[len(parts)-1]
	}
	return name
}

// Describe renders a layer's policy in one clause: "3 attempts, waits 1s, 2s".
func (l *Layer) Describe() string {
	var parts []string
	if n, ok := l.Attempts(); ok {
		parts = append(parts, fmt.Sprintf("%d attempts", n))
	} else if l.Policy.Attempts.Known && l.Policy.Attempts.N == 0 {
		parts = append(parts, "unbounded attempts")
	}
	if len(l.Policy.Waits) > 0 {
		var ws []string
		for _, w := range l.Policy.Waits {
			ws = append(ws, durconst.Format(w))
		}
		parts = append(parts, "waits "+strings.Join(ws, ", "))
	}
	return strings.Join(parts, ", ")
}
