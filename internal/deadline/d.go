package deadline

import (
	"fmt"
	"go/token"
	"strconv"
	"time"

	"github.com/retryvet/retryvet/internal/durconst"
)

// DKind is what a path's deadline is.
type DKind int

const (
	// None: no deadline reaches the call.
	None DKind = iota
	// Known: the deadline folds to a constant (D).
	Known
	// Unfolded: a deadline is set but cannot be folded to a constant;
	// Bound > 0 when a known part caps it.
	Unfolded
	// FromCaller: the context comes from outside the analysed code.
	FromCaller
	// Unknown: the context cannot be followed to where it was made.
	Unknown
)

// D is the deadline that reaches a pipeline call on one path.
type D struct {
	Kind  DKind
	D     time.Duration // Known
	Bound time.Duration // Unfolded: at most this (0 when nothing caps it)
	Src   token.Pos     // where it is set (or where the trace stopped)
	Set   *Set          // the deadline call that decides it, if any
	What  string        // Unknown: what the trace stopped at
}

// Summarize turns a traced flow (followed all the way to its origin, or to
// the entry's parameter) into the deadline of the path: the minimum of the
// deadlines set on the way. An inner, longer timeout does not extend an
// outer one, so the minimum is what the call gets.
func Summarize(f Flow) D {
	var minKnown *Set
	var unfolded *Set
	for i := range f.Sets {
		s := &f.Sets[i]
		if !s.Known {
			if unfolded == nil {
				unfolded = s
			}
			continue
		}
		if minKnown == nil || s.D < minKnown.D {
			minKnown = s
		}
	}
	switch {
	case unfolded != nil || f.Partial && minKnown != nil:
		d := D{Kind: Unfolded}
		if minKnown != nil {
			d.Bound = minKnown.D
		}
		if unfolded != nil {
			d.Set, d.Src = unfolded, unfolded.Pos
		} else {
			d.Set, d.Src = minKnown, minKnown.Pos
		}
		return d
	case minKnown != nil:
		return D{Kind: Known, D: minKnown.D, Set: minKnown, Src: minKnown.Pos}
	case f.Partial:
		return D{Kind: Unfolded, Src: f.Pos}
	}
	switch f.Origin {
	case Background, Request, Detached:
		return D{Kind: None, Src: f.Pos}
	case Param, FreeVar:
		return D{Kind: FromCaller, Src: f.Pos}
	}
	return D{Kind: Unknown, Src: f.Pos, What: f.What}
}

// String renders the deadline the way the census prints it: a duration,
// "none", "unknown" or "from caller".
func (d D) String() string {
	switch d.Kind {
	case None:
		return "none"
	case Known:
		return Format(d.D)
	case FromCaller:
		return "from caller"
	}
	return "unknown"
}

// Format renders a duration as the census and the messages print it:
// seconds (72s, 200s, 60.5s), below a second as time.Duration does
// (500ms).
func Format(d time.Duration) string {
	switch {
	case d > 0 && d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	case d > time.Second && d%time.Millisecond == 0:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	}
	return durconst.Format(d)
}
