// Package deadline is the deadline side of retryvet's model: how much time a
// pipeline's retry needs before its first retry can start (derived from the
// retry model's policy), and which deadline a context carries at a call (the
// context.Context traced backward through SSA to where it was made).
//
// The census (whole program) and the deadlinecensus analyzer (one package
// at a time, with facts) both use this package, so a requirement and a
// deadline are derived the same way in both.
package deadline

import (
	"fmt"
	"strings"
	"time"

	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/values"
)

// Requirement is what a pipeline's retry needs from its caller's deadline.
type Requirement struct {
	Pipeline string // pkg.(*T).M, as messages name it
	Layer    string // the retry layer's name ("retry loop", "openai Chat.Completions.New")
	Posn     string // where the layer is, dir/file.go:line

	Waits        []time.Duration
	WaitsUpTo    []time.Duration // the most each wait can be when jitter spreads it
	Reserve      time.Duration
	ReserveKnown bool

	// The retry's schedule as the model sees it, for the census's
	// baseline: total attempts (0 when unknown or unbounded), whether each
	// wait is at least the one listed, the per-attempt timeout and the
	// maximum elapsed time (0 when none).
	Attempts      int64
	AttemptsKnown bool
	Unbounded     bool
	WaitsAtLeast  bool
	PerAttempt    time.Duration
	MaxElapsed    time.Duration

	// Required is R: the time left the caller must give for the first
	// retry to start. Known is false when the policy does not fix it;
	// AtLeast says R is a lower bound (a part of it is not fixed by code).
	Required time.Duration
	Known    bool
	AtLeast  bool
	// Retry is false when no retry layer was seen (a //retryvet:pipeline
	// function without one): only the p99 is checked.
	Retry bool
	// Guarded: R comes from a deadline guard, so it holds no attempt
	// time; a bound on it is a bound on the wait the guard reads.
	Guarded bool

	P99     time.Duration // declared //retryvet:p99, 0 when none
	P99Posn string

	// Derivation says how R was derived, with positions.
	Derivation string
	Short      string // the policy in a message's parenthesis, when not waits and reserve
}

// Derive computes R from a retry layer's policy as the model exports it, and
// the pipeline's declared p99 (0 when none). li is nil for a pipeline whose
// retry the model does not see. This is the one place R is computed.
//
//   - With a deadline guard (another attempt only when the time left covers
//     wait + reserve): R = first wait + reserve, or the reserve alone when the
//     guard does not add the wait.
//   - Without one: the first attempt's time (the per-attempt timeout, else
//     the declared p99) + the first wait + the second attempt's time.
//     When the attempt time is unknown, R is at least the first wait.
func Derive(pipeline string, li *retrymodel.LayerInfo, p99 time.Duration, p99Posn string) Requirement {
	r := Requirement{Pipeline: pipeline, P99: p99, P99Posn: p99Posn}
	if li == nil {
		r.Derivation = "no retry seen by the model (//retryvet:pipeline): only the p99 is checked"
		return r
	}
	r.Retry = true
	r.Layer, r.Posn = li.Name, li.Posn
	r.Waits, r.WaitsUpTo = li.Waits, li.WaitsUpTo
	r.Reserve, r.ReserveKnown = li.Reserve, li.ReserveKnown
	r.Attempts, r.AttemptsKnown, r.Unbounded = li.Attempts, li.AttemptsKnown, li.Unbounded
	r.WaitsAtLeast, r.PerAttempt, r.MaxElapsed = li.WaitsAtLeast, li.PerAttempt, li.MaxElapsed
	if li.AttemptsKnown && li.Attempts == 1 {
		r.Retry = false
		r.Derivation = fmt.Sprintf("%s at %s makes a single attempt: only the p99 is checked", li.Name, li.Posn)
		return r
	}
	var w0 time.Duration
	haveW0 := len(li.Waits) > 0
	if haveW0 {
		w0 = li.Waits[0]
	}
	r.Guarded = li.GuardPosn != ""
	if li.GuardPosn != "" && li.GuardWait && li.GuardWait0 > 0 && li.ReserveKnown {
		// The guard reads a base wait that the sleep then spreads: the
		// time it asks for is that base plus the reserve.
		r.Required, r.Known, r.AtLeast = li.GuardWait0+li.Reserve, true, li.GuardWait0AtLeast
		lb := ""
		if li.GuardWait0AtLeast {
			lb = " at least"
		}
		r.Derivation = fmt.Sprintf("guard at %s: remaining >= wait + reserve (the wait it reads is%s %s on the first retry, before the pause spreads it; + reserve %s)", li.GuardPosn, lb, Format(li.GuardWait0), Format(li.Reserve))
		return r
	}
	if li.GuardPosn != "" {
		guard := "guard at " + li.GuardPosn
		switch {
		case !li.ReserveKnown:
			r.Derivation = guard + ": remaining >= wait + reserve, but the reserve cannot be folded to a constant"
		case !li.GuardWait:
			r.Required, r.Known = li.Reserve, true
			r.Derivation = fmt.Sprintf("%s: remaining >= reserve (%s)", guard, Format(li.Reserve))
		case haveW0:
			r.Required, r.Known = w0+li.Reserve, true
			r.Derivation = fmt.Sprintf("%s: remaining >= wait + reserve (first wait %s + reserve %s)", guard, Format(w0), Format(li.Reserve))
		default:
			r.Required, r.Known, r.AtLeast = li.Reserve, true, true
			r.Derivation = fmt.Sprintf("%s: remaining >= wait + reserve (first wait unknown: at least the reserve %s)", guard, Format(li.Reserve))
		}
		return r
	}
	// No guard: attempt + wait + attempt.
	var attempt time.Duration
	var attemptSrc string
	switch {
	case li.PerAttempt > 0:
		attempt, attemptSrc = li.PerAttempt, "per-attempt timeout "+Format(li.PerAttempt)
	case p99 > 0:
		attempt, attemptSrc = p99, "p99 "+Format(p99)
		switch p99Posn {
		case "":
		case retrymodel.DefaultP99Source:
			attemptSrc += ", " + p99Posn
		default:
			if values.IsSource(p99Posn) {
				attemptSrc += " from " + p99Posn
				break
			}
			attemptSrc += " declared at " + p99Posn
		}
	}
	switch {
	case attempt > 0 && haveW0:
		r.Required, r.Known = attempt+w0+attempt, true
		r.Short = fmt.Sprintf("attempt %s + wait %s + attempt %s", Format(attempt), Format(w0), Format(attempt))
		r.Derivation = fmt.Sprintf("no deadline guard: first attempt %s (%s) + first wait %s + second attempt %s; %s at %s",
			Format(attempt), attemptSrc, Format(w0), Format(attempt), li.Name, li.Posn)
	case haveW0:
		r.Required, r.Known, r.AtLeast = w0, true, true
		r.Derivation = fmt.Sprintf("no deadline guard: at least the first wait %s of %s at %s (attempt time unknown: declare //retryvet:p99 on the remote call)",
			Format(w0), li.Name, li.Posn)
	case attempt > 0:
		r.Required, r.Known, r.AtLeast = 2*attempt, true, true
		r.Derivation = fmt.Sprintf("no deadline guard: at least two attempts of %s (%s); the first wait of %s at %s is unknown",
			Format(attempt), attemptSrc, li.Name, li.Posn)
	default:
		r.Derivation = fmt.Sprintf("%s at %s: neither its waits nor its attempt time are fixed by the code", li.Name, li.Posn)
	}
	return r
}

// Policy renders the policy in the short form messages use:
// "waits 7s, 11s; reserve 65s".
func (r Requirement) Policy() string {
	if r.Short != "" {
		return r.Short
	}
	var parts []string
	if len(r.Waits) > 0 {
		parts = append(parts, "waits "+r.WaitsString())
	}
	if r.ReserveKnown {
		parts = append(parts, "reserve "+Format(r.Reserve))
	}
	if len(parts) == 0 {
		return r.Derivation
	}
	return strings.Join(parts, "; ")
}

// WaitsString renders the waits, a wait that jitter spreads as its range:
// "7s-8.75s, 11s-13.75s".
func (r Requirement) WaitsString() string {
	var ws []string
	for i, w := range r.Waits {
		if i < len(r.WaitsUpTo) && r.WaitsUpTo[i] > w {
			ws = append(ws, Format(w)+"-"+Format(r.WaitsUpTo[i]))
			continue
		}
		ws = append(ws, Format(w))
	}
	return strings.Join(ws, ", ")
}

// RequiredString renders R: "72s", "at least 1s", "unknown", "-" (no retry).
func (r Requirement) RequiredString() string {
	switch {
	case !r.Retry:
		return "-"
	case !r.Known:
		return "unknown"
	case r.AtLeast:
		return "at least " + Format(r.Required)
	}
	return Format(r.Required)
}

// CanStart says whether the first retry can start under deadline d.
func (r Requirement) CanStart(d D) retrymodel.Tri {
	if !r.Retry {
		return retrymodel.Unknown
	}
	switch d.Kind {
	case None:
		return retrymodel.Yes
	case Known:
		if !r.Known {
			return retrymodel.Unknown
		}
		if d.D < r.Required {
			return retrymodel.No
		}
		if r.AtLeast {
			return retrymodel.Unknown
		}
		return retrymodel.Yes
	case Unfolded:
		// One part is known: the deadline is at most that.
		if r.Known && d.Bound > 0 && d.Bound < r.Required {
			return retrymodel.No
		}
	}
	return retrymodel.Unknown
}

// CoversP99 says whether deadline d leaves room for a call at the p99.
func (r Requirement) CoversP99(d D) retrymodel.Tri {
	if r.P99 <= 0 {
		return retrymodel.Unknown
	}
	switch d.Kind {
	case None:
		return retrymodel.Yes
	case Known:
		if d.D < r.P99 {
			return retrymodel.No
		}
		return retrymodel.Yes
	case Unfolded:
		if d.Bound > 0 && d.Bound < r.P99 {
			return retrymodel.No
		}
	}
	return retrymodel.Unknown
}

// NeverStartsMessage is the finding for a deadline below R, shared by the
// analyzer and the census' explanations.
func NeverStartsMessage(r Requirement, d time.Duration, where string) string {
	return fmt.Sprintf("retry in %s can never start on this path: deadline %s (%s) < %s needed (%s)",
		r.Pipeline, Format(d), where, Format(r.Required), r.Policy())
}

// BelowP99Message is the finding for a deadline below the declared p99.
func BelowP99Message(r Requirement, d time.Duration) string {
	p99 := Format(r.P99)
	if values.IsSource(r.P99Posn) {
		p99 += " (from " + r.P99Posn + ")"
	}
	return fmt.Sprintf("deadline %s is below the %s p99 of %s: slow answers become errors and the backup is never asked",
		Format(d), p99, r.Pipeline)
}
