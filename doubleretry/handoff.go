package doubleretry

import (
	"go/token"
	"slices"
	"strings"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// handOffs reports the retry helpers whose attempts come from their
// caller (a count or a config handed in), which the main pass leaves alone
// at each call site. What such a helper retries is handed to it at its call
// sites, so the finding is said once:
//
//   - for a helper of this package, at the helper's own retry (gitlabDo's
//     retryx.Do), naming the calls that hand it an operation that retries
//     by itself;
//   - for a helper of another package, at each call that hands it one.
//
// Only a nesting whose inner retries are counted is reported: "unknown ×
// unknown" says nothing a reader can act on.
func (c *checker) handOffs(reported map[token.Pos]bool) {
	byRoot := make(map[*retrymodel.Layer][]retrymodel.Chain)
	var roots []*retrymodel.Layer
	for _, l := range c.res.HelperLayers {
		if _, known := l.Attempts(); known || reported[l.Pos] {
			continue // counted: the main pass said it at the call
		}
		root := l.HelperOf
		for i := 0; root != nil && root.HelperOf != nil && i < 8; i++ {
			root = root.HelperOf // a helper that hands on to another of this package
		}
		if root == nil {
			// A helper of another package: each call is its own nesting.
			if chains := counted(nested(retrymodel.Shorten(c.pass.Fset, l.Pos), c.retried(l))); len(chains) > 0 {
				reported[l.Pos] = true
				c.report(l, chains)
			}
			continue
		}
		via := strings.TrimPrefix(l.Name, "retry helper ") + " call at " + retrymodel.Shorten(c.pass.Fset, l.Pos)
		for _, ch := range counted(nested(retrymodel.Shorten(c.pass.Fset, root.Pos), c.retried(l))) {
			ch.Via = append([]string{via}, ch.Via...)
			if _, seen := byRoot[root]; !seen {
				roots = append(roots, root)
			}
			byRoot[root] = append(byRoot[root], ch)
		}
	}
	slices.SortFunc(roots, func(a, b *retrymodel.Layer) int { return int(a.Pos - b.Pos) })
	for _, root := range roots {
		if reported[root.Pos] {
			continue
		}
		chains := nested(retrymodel.Shorten(c.pass.Fset, root.Pos), byRoot[root])
		if len(chains) == 0 {
			continue
		}
		reported[root.Pos] = true
		c.report(root, chains)
	}
}

// counted keeps the chains whose every layer's attempts are known.
func counted(chains []retrymodel.Chain) []retrymodel.Chain {
	var out []retrymodel.Chain
	for _, ch := range chains {
		if _, ok := ch.Product(); ok {
			out = append(out, ch)
		}
	}
	return out
}
