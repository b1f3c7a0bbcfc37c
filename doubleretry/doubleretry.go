package doubleretry

import (
	_ "embed"
	"go/ast"
	"go/token"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"

	"github.com/retryvet/retryvet/internal/analysisdoc"
	"github.com/retryvet/retryvet/internal/directive"
	"github.com/retryvet/retryvet/internal/effects"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Name is the analyzer's stable name.
const Name = "doubleretry"

//go:embed doc.go
var doc string

// Analyzer reports retry layers whose retried operation reaches another
// retry layer.
var Analyzer = &analysis.Analyzer{
	Name:     Name,
	Doc:      analysisdoc.Extract(doc, Name),
	URL:      analysisdoc.URL(Name),
	Run:      directive.Filter(Name, run),
	Requires: []*analysis.Analyzer{inspect.Analyzer, retrymodel.Analyzer, effects.Analyzer},
}

func run(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[retrymodel.Analyzer].(*retrymodel.Result)
	defer res.Hold()()
	infraRetries(pass, res) // the proxy or mesh in front (infra.go)
	c := &checker{pass: pass, res: res, byPosn: make(map[string]*retrymodel.Layer)}
	all := append(slices.Clone(res.Layers), res.HelperLayers...)
	for _, l := range all {
		c.byPosn[retrymodel.Shorten(pass.Fset, l.Pos)] = l
	}
	c.implRetries() // a dependency's retry of an interface this package implements (implretry.go)
	if len(all) == 0 {
		return nil, nil // fast path: no retry layer, nothing can nest
	}
	fallback := make(map[ast.Node]bool)
	for _, f := range res.Fallbacks {
		fallback[f.Node] = true
	}
	// Calls of retry helpers count as layers here: a helper around an SDK
	// call nests like a loop around it.
	layers := all
	slices.SortFunc(layers, func(a, b *retrymodel.Layer) int { return int(a.Pos - b.Pos) })
	helper := make(map[*retrymodel.Layer]bool)
	for _, l := range res.HelperLayers {
		helper[l] = true
	}
	reported := make(map[token.Pos]bool)
	for _, l := range layers {
		if fallback[l.Node] || reported[l.Pos] || !retries(l) || c.inTest(l.Pos) {
			continue
		}
		if _, known := l.Attempts(); helper[l] && !known {
			// A helper whose count comes from its caller's arguments
			// (a backoff passed in): each call site would repeat the same
			// "unknown × unknown" about the helper; say nothing.
			continue
		}
		if c.reentry(l) { // reentry.go
			reported[l.Pos] = true
			continue
		}
		chains := nested(retrymodel.Shorten(pass.Fset, l.Pos), c.retried(l))
		if len(chains) == 0 {
			continue
		}
		reported[l.Pos] = true
		c.report(l, chains)
	}
	c.handOffs(reported) // helpers counted by their callers (handoff.go)
	writes, _ := pass.ResultOf[effects.Analyzer].(*effects.Result)
	var keys *idemIndex
	for _, l := range layers {
		if fallback[l.Node] || c.inTest(l.Pos) {
			continue
		}
		c.consumedBodies(l) // a body the first attempt read, sent again (body.go)
		if !sideEffects {
			continue // opt-in (sideeffects.go)
		}
		c.repeatedWrites(l, writes) // a write each attempt makes again (repeated.go)
		if keys == nil {
			keys = c.idemScan()
		}
		c.idemKeys(l, keys) // a POST sent again with no idempotency key (idemkey.go)
	}
	return nil, nil
}

// inTest reports a layer in a _test.go file: a test's retries wait for its
// own harness (a test broker to answer, a container to listen) and send
// nothing to a production dependency, so what they multiply is the test's
// concern, as their time behaviour is (retrytimeout leaves them too).
func (c *checker) inTest(pos token.Pos) bool { return retrymodel.InTestFile(c.pass.Fset, pos) }

type checker struct {
	pass   *analysis.Pass
	res    *retrymodel.Result
	byPosn map[string]*retrymodel.Layer // this package's layers by dir/file.go:line
}

// retries reports whether the layer can make more than one attempt. A
// client or SDK call with its retries off makes exactly one. A conflict
// retry re-reads and re-writes after losing a race; it does not re-send a
// failed request, so it is no retry layer here (retrymodel conflict.go).
func retries(l *retrymodel.Layer) bool {
	if l.Policy.ConflictOnly.IsValid() {
		return false
	}
	n, ok := l.Attempts()
	return !ok || n > 1
}

// nested cleans the chains reached from inside the layer at outer: layers
// that make a single attempt (an SDK with retries off) are not retries and are dropped;
// a chain that is a prefix of a longer one says nothing more; the worst
// chain comes first (most layers, then the largest product).
func nested(outer string, chains []retrymodel.Chain) []retrymodel.Chain {
	var out []retrymodel.Chain
	for _, c := range chains {
		var ls []retrymodel.LayerInfo
		for _, li := range c.Nesting() {
			if li.Posn == outer {
				break // the layer reached again through recursion: a cycle, not a nesting
			}
			if li.AttemptsKnown && li.Attempts == 1 || li.ConflictOnly {
				continue
			}
			ls = append(ls, li)
		}
		if len(ls) == 0 {
			continue
		}
		out = append(out, retrymodel.Chain{Via: c.Via, Layers: ls})
	}
	key := func(ls []retrymodel.LayerInfo) []string {
		var k []string
		for _, l := range ls {
			k = append(k, l.Posn)
		}
		return k
	}
	var kept []retrymodel.Chain
	for i, c := range out {
		ki := key(c.Layers)
		redundant := false
		for j, d := range out {
			if i == j {
				continue
			}
			kj := key(d.Layers)
			if len(kj) > len(ki) && slices.Equal(kj[:len(ki)], ki) {
				redundant = true // a prefix of a longer chain
				break
			}
			if j < i && slices.Equal(ki, kj) {
				redundant = true // the same layers reached another way
				break
			}
		}
		if !redundant {
			kept = append(kept, c)
		}
	}
	slices.SortStableFunc(kept, func(a, b retrymodel.Chain) int {
		if len(a.Layers) != len(b.Layers) {
			return len(b.Layers) - len(a.Layers)
		}
		pa, _ := a.Product()
		pb, _ := b.Product()
		switch {
		case pa > pb:
			return -1
		case pa < pb:
			return 1
		}
		return len(a.Via) - len(b.Via) // the most direct path names the layer best
	})
	return kept
}
