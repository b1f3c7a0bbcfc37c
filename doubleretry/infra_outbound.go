package doubleretry

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"net/url"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/infra"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Outbound: a sidecar mesh (Istio, Linkerd) retries the requests a service
// sends, per the route of the destination's VirtualService or
// ServiceProfile. A retry loop around a request to a constant URL whose
// host such a route serves wraps the mesh's retries.

// infraOutbound reports the retry layers of this package whose function
// sends requests to one constant URL that a retrying mesh route covers.
func (c *checker) infraOutbound(cfg *infra.Config) {
	for _, l := range c.res.Layers {
		if (l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library) || !retries(l) || l.FuncNode == nil {
			continue
		}
		u, call := c.constantURL(l.FuncNode)
		if u == nil {
			continue
		}
		for _, rt := range cfg.Routes {
			if (rt.Proxy != "istio" && rt.Proxy != "linkerd") || !servesHost(rt, u.Hostname()) || !rt.Covers(u.Path) {
				continue
			}
			if conds, codesOnly := rt.RetriesAfterStart(); len(conds) == 0 || codesOnly {
				continue // no retry once the server has the request, or only on statuses not known to be sent
			}
			c.reportOutbound(l, rt, u, call)
			break
		}
	}
}

// constantURL returns the one constant URL the function sends requests to
// (http.NewRequest[WithContext], http.Get/Post/Head, (*http.Client).Get/
// Post/Head), or nil when there is none or more than one.
func (c *checker) constantURL(fn ast.Node) (*url.URL, *ast.CallExpr) {
	var found *url.URL
	var at *ast.CallExpr
	many := false
	ast.Inspect(fn, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || many {
			return !many
		}
		f, ok := typeutil.Callee(c.pass.TypesInfo, call).(*types.Func)
		if !ok || f.Pkg() == nil || f.Pkg().Path() != "net/http" {
			return true
		}
		arg := -1
		switch f.Name() {
		case "NewRequest":
			arg = 1
		case "NewRequestWithContext":
			arg = 2
		case "Get", "Post", "Head", "PostForm":
			arg = 0
		}
		if arg < 0 || arg >= len(call.Args) {
			return true
		}
		tv, ok := c.pass.TypesInfo.Types[call.Args[arg]]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			return true
		}
		u, err := url.Parse(constant.StringVal(tv.Value))
		if err != nil || u.Host == "" {
			return true
		}
		if found != nil && found.String() != u.String() {
			many = true
			return false
		}
		found, at = u, call
		return true
	})
	if many {
		return nil, nil
	}
	return found, at
}

// servesHost: the route's resource is for host (a VirtualService's hosts,
// a ServiceProfile's name), by full name or by service name.
func servesHost(rt *infra.Route, host string) bool {
	names := rt.Hosts
	if rt.Proxy == "linkerd" {
		names = rt.Dest
	}
	for _, h := range names {
		if h == host || (!strings.Contains(host, ".") || !strings.Contains(h, ".")) && firstLabel(h) == firstLabel(host) {
			return true
		}
	}
	return false
}

func firstLabel(h string) string {
	if i := strings.IndexByte(h, '.'); i > 0 {
		return h[:i]
	}
	return h
}

func (c *checker) reportOutbound(l *retrymodel.Layer, rt *infra.Route, u *url.URL, call *ast.CallExpr) {
	outer := c.info(l)
	factors := []string{fmt.Sprintf("own loop %d", outer.Attempts), fmt.Sprintf("%s %d attempts", proxyWord(rt), rt.Retry.Attempts())}
	if l.Kind != retrymodel.Loop {
		factors[0] = fmt.Sprintf("%s %d", l.Name, outer.Attempts)
	}
	total := ""
	if rt.Retry.Known {
		total = fmt.Sprintf(" = up to %d requests per call", outer.Attempts*int64(rt.Retry.Attempts()))
	} else {
		factors[1] = proxyWord(rt) + " attempts unknown"
		total = " requests per call"
	}
	msg := fmt.Sprintf("%s%s at %s wraps a request to %s (%s), which %s retries %s after the server has it (%s): %s%s; pick one layer: %s, or drop %s",
		l.Name, attemptsParen(outer), outer.Posn, u.String(), retrymodel.Shorten(c.pass.Fset, call.Pos()),
		routeName(rt), retryTimes(rt), conditions(rt), strings.Join(factors, " × "), total, retriesOff(rt), noun(l))
	c.pass.Report(analysis.Diagnostic{Pos: l.Pos, End: end(l), Message: msg})
}
