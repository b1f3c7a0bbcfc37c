package doubleretry

import (
	"fmt"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// implRetries reports this package's implementations of an interface
// method that a retry layer of a dependency repeats, when the
// implementation retries too (retrymodel implretry.go):
//
//	package llm                      // the core
//	for attempt := 1; attempt <= 3; attempt++ {
//		resp, err := provider.Chat(ctx, req) // Provider is an interface
//		...
//	}
//
//	package anthropic                // imports llm
//	func (p *Provider) Chat(...) { p.http.Do(req) } // retries 4 times
//
// The core cannot see the provider packages, which import it; each of
// them sees the core's retry. The finding is at the implementing method,
// with both positions and the product (each implementation is a nesting
// of its own, so a count the caller gives is reported as unknown, as for
// a loop of this package).
func (c *checker) implRetries() {
	type group struct {
		ir     retrymodel.ImplRetry
		chains []retrymodel.Chain
		also   []retrymodel.LayerInfo
	}
	var groups []*group
	byImpl := map[string]*group{}
	for _, ir := range c.res.ImplRetries() {
		if c.inTest(ir.Impl.Pos()) {
			continue
		}
		chains := nested(ir.Outer.Posn, ir.Chains)
		if len(chains) == 0 {
			continue
		}
		key := ir.Impl.FullName()
		if g := byImpl[key]; g != nil {
			if g.ir.Outer.Posn != ir.Outer.Posn {
				g.also = append(g.also, ir.Outer)
			}
			continue
		}
		g := &group{ir: ir, chains: chains}
		byImpl[key] = g
		groups = append(groups, g)
	}
	for _, g := range groups {
		outer, worst := g.ir.Outer, g.chains[0]
		var b strings.Builder
		fmt.Fprintf(&b, "%s%s at %s retries %s, and this implementation of it wraps %s: ", outer.Name, attemptsParen(outer), outer.Posn, g.ir.Method, c.wrapped(worst))
		b.WriteString(product(outer, worst.Layers))
		b.WriteString("; pick one layer: ")
		b.WriteString(c.advice(fmt.Sprintf("the %s at %s", outer.Name, outer.Posn), worst.Layers))
		if len(g.also) > 0 {
			var more []string
			for _, o := range g.also {
				more = append(more, fmt.Sprintf("%s at %s", o.Name, o.Posn))
			}
			fmt.Fprintf(&b, "; %s is also retried by %s", g.ir.Method, strings.Join(more, ", "))
		}
		decl := c.res.Decl(g.ir.Impl)
		pos, end := g.ir.Impl.Pos(), g.ir.Impl.Pos()
		if decl != nil {
			pos, end = decl.Name.Pos(), decl.Name.End()
		}
		c.pass.Report(analysis.Diagnostic{
			Pos:            pos,
			End:            end,
			Category:       "impl-retry",
			Message:        b.String(),
			SuggestedFixes: c.fix(worst),
		})
	}
}
