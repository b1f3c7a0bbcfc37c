package retrymodel

import (
	"fmt"
	"strings"
	"time"
)

// FuncFact is exported for every function that contains or reaches a retry
// layer, makes a remote call, waits (a sleep helper), reads Retry-After, or
// carries a //retryvet:p99 or //retryvet:pipeline directive. It is how one
// package's retry layers are seen from the packages that import it, the way
// printf's wrapper facts are.
type FuncFact struct {
	// Chains are the retry layers a call of the function runs, each chain
	// listing nested layers outermost first. At most maxChains are kept.
	Chains []Chain
	// Made are the retry layers of the closures the function returns: they
	// run where the caller runs the result, not in the call (fact.go's
	// Chains leave them out; reach.go).
	Made []Chain
	// Remote: the function makes a remote call, itself or through callees.
	Remote bool
	// Waiter: the function waits for a duration it is given (a sleep
	// helper); WaitArg is the index of that parameter and Cancellable says
	// whether the wait returns early when its context is done.
	Waiter      bool
	WaitArg     int
	Cancellable bool
	// RetryAfter: the function reads a Retry-After or retry-after-ms header.
	RetryAfter bool
	// P99 is the declared //retryvet:p99 of the function's remote call.
	P99     time.Duration
	P99Posn string
	// Pipeline: marked //retryvet:pipeline.
	Pipeline bool
	// RetriesParam is 1 + the index of a function parameter the function
	// retries (a retry helper), 0 if none; Helper is that retry's layer.
	RetriesParam int
	Helper       LayerInfo
	// ReturnsRetrier is 1 + the index of the parameter of the func value the
	// function returns that this func retries (a retrier factory:
	// cfg.RequestFunc(evaluate) returns func(ctx, fn) that retries fn),
	// 0 if none; Helper is that retry's layer, whose ClassifierParam is
	// the factory's.
	ReturnsRetrier int
	// GuardArg is 1 + the index of a duration parameter that the function
	// returns whether the time left on a context covers (a guard helper,
	// func roomFor(ctx, d) bool), 0 if none.
	GuardArg int
	// GuardReserve is what the guard adds to that parameter before the
	// comparison (wait + 8*time.Second: 8s).
	GuardReserve time.Duration
	// WaitTable is, for a sleep helper that computes its wait from an
	// integer parameter (func pause(attempt int)), the wait for argument
	// 0, 1, ...; WaitTableArg is that parameter's index. A helper that
	// waits a constant has a table of one entry and WaitTableArg -1.
	WaitTable    []time.Duration
	WaitTableArg int
	// DurTable is, for an exported function that returns a duration
	// computed from its one integer parameter (backoff.Do(attempt)), what
	// it returns for argument 0, 1, ...: a wait of another package's
	// making folds at the call.
	DurTable []time.Duration
	// CtxRetry: the function retries on the context a parameter gives
	// (ctxretry.go); nil if not.
	CtxRetry *CtxRetry
	// CancelAccessor: a method that gives out its receiver's cancellation
	// (a context field that can be done, its Done channel; cancel.go).
	CancelAccessor bool
	// OnSuccess is Yes for a bool function handed an error that answers
	// true when the error is nil, tested as such (IsACK(err)): a success
	// test wherever it is called (summary.go's ackPred).
	OnSuccess Tri
	// Detached: the function returns a context that no cancellation of
	// the one it is given reaches (Detaches; context.WithoutCancel in a
	// wrapper). CtxParam is 1 + the index of the context parameter its
	// returned context derives from otherwise (a WithValue wrapper), 0 if
	// none: detached when that argument is.
	Detached bool
	CtxParam int
}

// AFact marks FuncFact as an analysis fact.
func (*FuncFact) AFact() {}

func (f *FuncFact) String() string {
	var parts []string
	for _, c := range f.Chains {
		parts = append(parts, "reaches "+c.String())
	}
	if f.Remote {
		parts = append(parts, "remote")
	}
	if f.Waiter || len(f.WaitTable) > 0 {
		w := "waits"
		if f.Cancellable {
			w += "(ctx)"
		}
		if len(f.WaitTable) > 0 {
			var ws []string
			for _, d := range f.WaitTable {
				ws = append(ws, d.String())
			}
			w += " " + strings.Join(ws, ",")
		}
		parts = append(parts, w)
	}
	if f.RetryAfter {
		parts = append(parts, "retry-after")
	}
	if len(f.DurTable) > 0 {
		var ds []string
		for _, d := range f.DurTable {
			ds = append(ds, d.String())
		}
		parts = append(parts, "returns "+strings.Join(ds, ","))
	}
	if f.P99 > 0 {
		parts = append(parts, "p99="+f.P99.String())
	}
	if f.Pipeline {
		parts = append(parts, "pipeline")
	}
	if f.RetriesParam > 0 {
		parts = append(parts, fmt.Sprintf("retries param %d", f.RetriesParam-1))
	}
	if f.ReturnsRetrier > 0 {
		parts = append(parts, fmt.Sprintf("returns a retrier of param %d", f.ReturnsRetrier-1))
	}
	if f.GuardArg > 0 {
		parts = append(parts, fmt.Sprintf("guards param %d", f.GuardArg-1))
	}
	if f.CancelAccessor {
		parts = append(parts, "cancel accessor")
	}
	if f.OnSuccess == Yes {
		parts = append(parts, "true on success")
	}
	return strings.Join(parts, "; ")
}

func (f *FuncFact) empty() bool {
	return len(f.Chains) == 0 && len(f.Made) == 0 && !f.Remote && !f.Waiter && !f.RetryAfter && f.P99 == 0 && !f.Pipeline && f.RetriesParam == 0 && f.ReturnsRetrier == 0 && f.GuardArg == 0 && len(f.WaitTable) == 0 && len(f.DurTable) == 0 && !f.CancelAccessor && !f.Detached && f.CtxParam == 0 && f.OnSuccess == Unknown
}

// A Chain is a stack of nested retry layers reached from a function.
type Chain struct {
	// Via lists the functions called on the way from the fact's function
	// to the outermost layer (empty when the function holds it itself).
	Via    []string
	Layers []LayerInfo
	// Gap is 1 + the index of the first layer whose failure the code above
	// it drops (dropped.go): Gap 1, the function never sees Layers[0]
	// fail; Gap 2, Layers[0] never sees Layers[1] fail. 0 when every
	// failure is handed up. Only the layers above the gap multiply.
	Gap int
}

// LayerInfo is the part of a Layer that crosses package boundaries.
type LayerInfo struct {
	Kind          Kind
	Name          string
	Posn          string // dir/file.go:line
	Func          string // function holding the layer
	Attempts      int64  // total attempts; 0 when unknown or unbounded
	AttemptsKnown bool
	Unbounded     bool
	Assumed       bool   // attempts are an SDK/library default assumed, not seen configured
	ByDefault     bool   // attempts are the client's default, which an option a caller may pass changes (joinsources.go)
	ClientPosn    string // where the client was built (SDK and Client layers)
	Waits         []time.Duration
	WaitsAtLeast  bool            // each wait is at least the one listed
	WaitsUpTo     []time.Duration // the most each wait can be when jitter spreads it; nil else
	FallbackPosn  string          // the call made after the retry gives up (a backup), dir/file.go:line
	AttemptCtxEnd string          // a per-attempt context check that ends the retry, dir/file.go:line
	Reserve       time.Duration   // the guard's reserve, when ReserveKnown
	ReserveKnown  bool
	GuardWait     bool // the guard adds the next wait to Reserve
	// GuardWait0 is the first wait as the guard reads it, when that is
	// not Waits[0] (a base wait a pause helper jitters); 0 else.
	// GuardWait0AtLeast: a hint may raise it.
	GuardWait0        time.Duration
	GuardWait0AtLeast bool
	GuardPosn         string
	PerAttempt        time.Duration
	MaxElapsed        time.Duration
	DeadlineAware     Tri
	Remote            bool
	ConflictOnly      bool // retries only conflicts (Policy.ConflictOnly)
	// ClassifierParam is, for a helper whose classifier is a call of one of
	// its func parameters (if !isRetriable(err) { return err }), that
	// parameter's index + 1: each call site's argument is the classifier.
	// Classified: the layer has a classifier of its own.
	ClassifierParam int
	Classified      bool
}

func (c Chain) String() string {
	var names []string
	for _, l := range c.Layers {
		s := l.Name
		if l.AttemptsKnown {
			s += fmt.Sprintf("(%d)", l.Attempts)
		}
		names = append(names, s)
	}
	return strings.Join(names, " > ")
}

// Product multiplies the attempts of every layer; ok is false when one of
// them is unknown or unbounded.
func (c Chain) Product() (int64, bool) {
	p := int64(1)
	for _, l := range c.Layers {
		if !l.AttemptsKnown || l.Attempts <= 0 {
			return 0, false
		}
		p *= l.Attempts
	}
	return p, true
}

// maxChains bounds the chains a fact keeps: the deepest first.
const maxChains = 4
