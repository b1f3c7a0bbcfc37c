package doubleretry

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// report writes one diagnostic at the outer layer l, naming the worst chain
// of layers it reaches (chains[0]) and the other layers it also reaches.
func (c *checker) report(l *retrymodel.Layer, chains []retrymodel.Chain) {
	worst := chains[0]
	outer := c.info(l)

	var b strings.Builder
	fmt.Fprintf(&b, "%s%s at %s wraps %s: ", l.Name, attemptsParen(outer), outer.Posn, c.wrapped(worst))
	b.WriteString(product(outer, worst.Layers))
	b.WriteString("; pick one layer: ")
	b.WriteString(c.advice(noun(l), worst.Layers))

	// The other layers reached from the same region, by their outermost layer.
	seen := map[string]bool{worst.Layers[0].Posn: true}
	var also []string
	for _, ch := range chains[1:] {
		first := ch.Layers[0]
		if seen[first.Posn] {
			continue
		}
		seen[first.Posn] = true
		also = append(also, fmt.Sprintf("%s at %s (%s)", first.Name, first.Posn, product(outer, ch.Layers)))
	}
	if len(also) > 0 {
		fmt.Fprintf(&b, "; %s also wraps %s", noun(l), strings.Join(also, ", "))
	}

	c.pass.Report(analysis.Diagnostic{
		Pos:            l.Pos,
		End:            end(l),
		Message:        b.String(),
		SuggestedFixes: c.fix(worst),
	})
}

// wrapped names the layers of a chain, outermost first: "retry loop (3
// attempts) at a.go:10 (through f), which wraps openai ... at b.go:20".
func (c *checker) wrapped(ch retrymodel.Chain) string {
	var b strings.Builder
	for i, li := range ch.Layers {
		var via []string
		if i == 0 {
			via = ch.Via
		} else {
			b.WriteString(", which wraps ")
		}
		b.WriteString(c.describe(li, via))
	}
	return b.String()
}

// end is the end of the layer's first line of syntax: the loop header or
// the call's callee, so the diagnostic does not cover the whole body.
func end(l *retrymodel.Layer) token.Pos {
	switch n := l.Node.(type) {
	case *ast.ForStmt:
		if n.Body != nil {
			return n.Body.Lbrace
		}
	case *ast.RangeStmt:
		return n.Body.Lbrace
	case *ast.CallExpr:
		return n.Lparen
	}
	return l.Pos
}

// info renders a layer of this package the way the facts do.
func (c *checker) info(l *retrymodel.Layer) retrymodel.LayerInfo {
	li := retrymodel.LayerInfo{
		Kind:    l.Kind,
		Name:    l.Name,
		Posn:    retrymodel.Shorten(c.pass.Fset, l.Pos),
		Assumed: l.Policy.Assumed,
		Remote:  l.Remote == retrymodel.Yes,
	}
	if a := l.Policy.Attempts; a.Known {
		li.Attempts, li.AttemptsKnown, li.Unbounded = a.N, a.N > 0, a.N == 0
	}
	if v := l.Policy.MaxElapsed; v.Known {
		li.MaxElapsed = v.D
	}
	if l.ClientPos.IsValid() {
		li.ClientPosn = retrymodel.Shorten(c.pass.Fset, l.ClientPos)
	} else {
		// A client built in another package: the model notes where.
		for _, n := range l.Policy.Notes {
			if posn, ok := strings.CutPrefix(n, "client built at "); ok {
				li.ClientPosn = posn
				break
			}
		}
	}
	return li
}

func attemptsParen(li retrymodel.LayerInfo) string {
	switch {
	case li.AttemptsKnown && li.Assumed:
		return fmt.Sprintf(" (%d attempts, default assumed)", li.Attempts)
	case li.AttemptsKnown:
		return fmt.Sprintf(" (%d attempts)", li.Attempts)
	case li.Unbounded && li.MaxElapsed > 0:
		return " (unbounded attempts within " + durconst.Format(li.MaxElapsed) + ")"
	case li.Unbounded:
		return " (unbounded attempts)"
	}
	return ""
}

// unboundedText says how far an unbounded layer goes: without a bound on
// its count, but within its own time limit when it has one (backoff's
// MaxElapsedTime, a timeout on the context it retries on).
func unboundedText(li retrymodel.LayerInfo) string {
	if li.MaxElapsed > 0 {
		return "unbounded within " + durconst.Format(li.MaxElapsed)
	}
	return "unbounded"
}

// describe names an inner layer: a retry loop or library with its attempts,
// a client or SDK call with its own retries and where its client was built.
func (c *checker) describe(li retrymodel.LayerInfo, via []string) string {
	var b strings.Builder
	selfRetrying := li.Kind == retrymodel.SDK || li.Kind == retrymodel.Client
	if selfRetrying {
		fmt.Fprintf(&b, "%s at %s", li.Name, li.Posn)
	} else {
		fmt.Fprintf(&b, "%s%s at %s", li.Name, attemptsParen(li), li.Posn)
	}
	if len(via) > 0 {
		fmt.Fprintf(&b, " (through %s)", strings.Join(via, ", "))
	}
	if !selfRetrying {
		return b.String()
	}
	who := "SDK"
	if li.Kind == retrymodel.Client {
		who = "client"
	}
	switch {
	case li.AttemptsKnown && li.Assumed && li.ClientPosn != "":
		fmt.Fprintf(&b, ", which retries %d more times (%s default (%d retries), assumed: the configuration of the client built at %s cannot be read)", li.Attempts-1, who, li.Attempts-1, li.ClientPosn)
	case li.AttemptsKnown && li.Assumed:
		fmt.Fprintf(&b, ", which retries %d more times (%s default (%d retries), assumed: client construction not found)", li.Attempts-1, who, li.Attempts-1)
	case li.AttemptsKnown:
		fmt.Fprintf(&b, ", which retries %d more times", li.Attempts-1)
		if c.isDefault(li) {
			b.WriteString(" by default")
		}
		if li.ClientPosn != "" {
			fmt.Fprintf(&b, " (client built at %s)", li.ClientPosn)
		}
	case li.Unbounded && li.MaxElapsed > 0:
		fmt.Fprintf(&b, ", which retries without a bound on the count for up to %s", durconst.Format(li.MaxElapsed))
	case li.Unbounded:
		b.WriteString(", which retries without a bound")
	default:
		b.WriteString(", which retries by itself")
		if li.ClientPosn != "" {
			fmt.Fprintf(&b, " (client built at %s)", li.ClientPosn)
		}
	}
	return b.String()
}

// isDefault reports whether a client or SDK layer's attempts are the
// library's default rather than written in the code. The model says so for
// layers of this package; for layers of other packages, whose facts do not
// carry it, the count is compared with the known defaults.
func (c *checker) isDefault(li retrymodel.LayerInfo) bool {
	if l := c.byPosn[li.Posn]; l != nil && l.Kind == li.Kind {
		return l.Policy.Attempts.Default
	}
	if li.ByDefault {
		return true // a client's own default, which an option can change
	}
	switch vendorOf(nil, li, nil) {
	case openai, anthropic, aws:
		return li.Attempts == 3
	case retryablehttp:
		return li.Attempts == 5
	}
	return false
}

// product says how many operations one call of the outer layer can make.
func product(outer retrymodel.LayerInfo, inner []retrymodel.LayerInfo) string {
	unit := "attempts"
	if last := inner[len(inner)-1]; last.Remote || last.Kind == retrymodel.SDK || last.Kind == retrymodel.Client {
		unit = "requests"
	}
	all := append([]retrymodel.LayerInfo{outer}, inner...)
	p, known := int64(1), true
	var factors []string
	for _, li := range all {
		switch {
		case li.AttemptsKnown:
			p *= li.Attempts
			factors = append(factors, fmt.Sprint(li.Attempts))
		case li.Unbounded:
			known = false
			factors = append(factors, unboundedText(li))
		default:
			known = false
			factors = append(factors, "unknown")
		}
	}
	if known {
		return fmt.Sprintf("up to %d %s per call", p, unit)
	}
	if q, ok := (retrymodel.Chain{Layers: inner}).Product(); ok {
		// Only the outer layer's count is open.
		how := "not known"
		if outer.Unbounded {
			how = unboundedText(outer)
		}
		return fmt.Sprintf("up to %d %s per attempt of this layer, whose attempts are %s", q, unit, how)
	}
	return fmt.Sprintf("%s multiply per call (%s)", unit, strings.Join(factors, " × "))
}

// advice lists the ways to keep one layer: turn off the innermost layer's
// own retries (or drop it), drop an intermediate layer, or drop the outer.
func (c *checker) advice(outer string, inner []retrymodel.LayerInfo) string {
	var opts []string
	last := inner[len(inner)-1]
	switch vendorOf(c.pass.TypesInfo, last, c.byPosn[last.Posn]) {
	case openai, anthropic:
		opts = append(opts, "option.WithMaxRetries(0) on the client")
	case aws:
		opts = append(opts, "RetryMaxAttempts = 1 (or aws.NopRetryer) on the client")
	case retryablehttp:
		opts = append(opts, "RetryMax = 0 on the retryablehttp client")
	default:
		opts = append(opts, fmt.Sprintf("drop the inner %s at %s", last.Name, last.Posn))
	}
	for _, li := range inner[:len(inner)-1] {
		opts = append(opts, fmt.Sprintf("drop the inner %s at %s", li.Name, li.Posn))
	}
	opts = append(opts, "or drop "+outer)
	return strings.Join(opts, ", ")
}

// noun names the outer layer l in advice: "this loop", "this backoff.Retry".
func noun(l *retrymodel.Layer) string {
	if l.Kind == retrymodel.Loop {
		return "this loop"
	}
	return "this " + l.Name
}

type vendor int

const (
	other vendor = iota
	openai
	anthropic
	aws
	retryablehttp
)

// vendorOf says which SDK or client a layer is. For a layer of this package
// it reads the callee's package; for a layer seen through a fact, its name.
func vendorOf(info *types.Info, li retrymodel.LayerInfo, l *retrymodel.Layer) vendor {
	if li.Kind != retrymodel.SDK && li.Kind != retrymodel.Client {
		return other
	}
	path := ""
	if l != nil && info != nil {
		if call, ok := l.Node.(*ast.CallExpr); ok {
			if fn, ok := typeutil.Callee(info, call).(*types.Func); ok && fn.Pkg() != nil {
				path = fn.Pkg().Path()
			}
		}
	}
	name := strings.ToLower(li.Name)
	switch {
	case strings.HasPrefix(path, "github.com/openai/"), strings.HasPrefix(name, "openai"):
		return openai
	case strings.HasPrefix(path, "github.com/anthropics/"), strings.HasPrefix(name, "anthropic"):
		return anthropic
	case strings.HasPrefix(path, "github.com/aws/"), strings.HasPrefix(name, "aws"):
		return aws
	case strings.HasPrefix(path, "github.com/hashicorp/go-retryablehttp"), strings.Contains(name, "retryablehttp"), li.Kind == retrymodel.Client:
		return retryablehttp
	}
	return other
}
