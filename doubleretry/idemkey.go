package doubleretry

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// This file reports a POST or PATCH that a retry sends again with no
// idempotency key, to an API that takes one (category
// no-idempotency-key, seeds 002-004):
//
//	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "https://api.stripe.com/v1/charges", body)
//	for attempt := 0; attempt < 3; attempt++ {
//		resp, err := client.Do(req) // a charge the server made before the connection broke is made again
//
// A request whose response was lost (a reset, a proxy's 502 after the
// backend answered, a client timeout) may have been carried out; sent
// again without the key the server folds repeats by, it is carried out
// twice. The SDKs that retry by default (OpenAI, Anthropic, Stripe) send a
// key themselves; a hand-built request does not.
//
// Evidence that the API takes a key is required, so that a POST to an API
// that has none is not reported: the package sets an idempotency header on
// another request, or the URL names a host whose API documents one. Quiet
// when the request carries the header, when it is handed to any other
// function before it is sent (a signer, a header helper: what it sets is
// not read), when its Header is replaced, and for GET, PUT and DELETE.

// idemHeaders are the header names APIs fold repeats by, lower-cased.
var idemHeaders = map[string]bool{
	"idempotency-key":     true, // Stripe, Adyen, GoCardless, the IETF draft
	"x-idempotency-key":   true,
	"cko-idempotency-key": true, // Checkout.com
	"paypal-request-id":   true, // PayPal
}

// idemHosts are API hosts whose documentation names the header they take.
var idemHosts = []struct{ host, header string }{
	{"api.stripe.com", "Idempotency-Key"},
	{"api.gocardless.com", "Idempotency-Key"},
	{"api-sandbox.gocardless.com", "Idempotency-Key"},
	{"adyen.com", "Idempotency-Key"},
	{"api.checkout.com", "Cko-Idempotency-Key"},
	{"api.sandbox.checkout.com", "Cko-Idempotency-Key"},
	{"api-m.paypal.com", "PayPal-Request-Id"},
	{"api-m.sandbox.paypal.com", "PayPal-Request-Id"},
	{"api.paypal.com", "PayPal-Request-Id"},
}

// idemIndex is what the package does with idempotency headers.
type idemIndex struct {
	keyed map[*types.Var]bool // requests given a key
	other token.Pos           // a header set anywhere in the package
	name  string              // the header's name as written there
}

// idemScan reads the package's idempotency headers: req.Header.Set(k, v),
// Add, and h[k] = v on an http.Header.
func (c *checker) idemScan() *idemIndex {
	info := c.pass.TypesInfo
	ix := &idemIndex{keyed: map[*types.Var]bool{}}
	mark := func(hdr ast.Expr, key ast.Expr, pos token.Pos) {
		tv, ok := info.Types[key]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String || !idemHeaders[strings.ToLower(constant.StringVal(tv.Value))] {
			return
		}
		if ix.other == token.NoPos {
			ix.other, ix.name = pos, constant.StringVal(tv.Value)
		}
		if sel, ok := astutil.Unparen(hdr).(*ast.SelectorExpr); ok && sel.Sel.Name == "Header" {
			if v := varOf(info, sel.X); v != nil {
				ix.keyed[v] = true
			}
		}
	}
	for _, f := range c.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				fn, _ := typeutil.Callee(info, n).(*types.Func)
				if fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "net/http" && retrymodel.RecvName(fn) == "Header" && (fn.Name() == "Set" || fn.Name() == "Add") && len(n.Args) == 2 {
					if sel, ok := astutil.Unparen(n.Fun).(*ast.SelectorExpr); ok {
						mark(sel.X, n.Args[0], n.Pos())
					}
				}
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if ie, ok := astutil.Unparen(lhs).(*ast.IndexExpr); ok {
						mark(ie.X, ie.Index, n.Pos())
					}
				}
			}
			return true
		})
	}
	return ix
}

func varOf(info *types.Info, e ast.Expr) *types.Var {
	id, ok := astutil.Unparen(e).(*ast.Ident)
	if !ok {
		return nil
	}
	if v, ok := info.Uses[id].(*types.Var); ok {
		return v
	}
	v, _ := info.Defs[id].(*types.Var)
	return v
}

// idemKeys reports the layer's retried sends of a POST or PATCH that
// carries no idempotency key, to an API that takes one.
func (c *checker) idemKeys(l *retrymodel.Layer, ix *idemIndex) {
	if l.Body == nil || !retries(l) || l.HelperOf != nil || (l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library) {
		return
	}
	fnBody := c.funcBody(l)
	for _, op := range c.res.RetriedCalls(l) {
		req := c.sentRequest(op)
		if req == nil || fnBody == nil || ix.keyed[req] {
			continue
		}
		br, ok := c.res.RequestBuilt(req)
		// A request handed to another function, or whose Header is
		// replaced, carries headers not known here.
		if !ok || br.Method != "POST" && br.Method != "PATCH" || c.handedOn(fnBody, op, recursion(l), "Header", req) || !c.res.FailureGoesRound(l, op) {
			continue
		}
		var takes, name string
		switch host, header := c.knownHost(br.URL); {
		case host != "":
			takes, name = fmt.Sprintf("%s takes %s", host, header), header
		case ix.other != token.NoPos:
			takes, name = fmt.Sprintf("the API takes one: this package sends %s at %s", ix.name, retrymodel.Shorten(c.pass.Fset, ix.other)), ix.name
		default:
			continue
		}
		times := "again on every attempt, with no bound on the attempts"
		if n, ok := l.Attempts(); ok {
			times = fmt.Sprintf("up to %d times per call", n)
		}
		var fixes []analysis.SuggestedFix
		if fix, ok := c.idemKeyFix(l, req, br.Call, name); ok {
			fixes = append(fixes, fix)
		}
		c.pass.Report(analysis.Diagnostic{
			SuggestedFixes: fixes,
			Pos:            op.Pos(),
			End:            op.End(),
			Category:       "no-idempotency-key",
			Message: fmt.Sprintf("the %s request built at %s is sent %s by the %s at %s with no idempotency key, and %s: a request the server carried out before its response was lost (a reset, a timeout, a proxy's 502) is carried out again; make one key per call before the retry and set it on every attempt",
				br.Method, retrymodel.Shorten(c.pass.Fset, br.Call.Pos()), times, l.Name, retrymodel.Shorten(c.pass.Fset, l.Pos), takes),
			Related: []analysis.RelatedInformation{{Pos: l.Pos, Message: "the retry"}},
		})
		return // one finding per layer
	}
}

// sentRequest is the request variable of a (*http.Client).Do call.
func (c *checker) sentRequest(op *ast.CallExpr) *types.Var {
	fn, _ := typeutil.Callee(c.pass.TypesInfo, op).(*types.Func)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "net/http" || retrymodel.RecvName(fn) != "Client" || fn.Name() != "Do" || len(op.Args) != 1 {
		return nil
	}
	return varOf(c.pass.TypesInfo, op.Args[0])
}

// funcBody is the body of the function declaration the layer is in.
func (c *checker) funcBody(l *retrymodel.Layer) *ast.BlockStmt {
	if l.Func == nil {
		return nil
	}
	if d := c.res.Decl(l.Func); d != nil {
		return d.Body
	}
	return nil
}

// setsField reports an assignment to v's field: v.Body = ...
func setsField(info *types.Info, as *ast.AssignStmt, v *types.Var, field string) bool {
	for _, lhs := range as.Lhs {
		if sel, ok := astutil.Unparen(lhs).(*ast.SelectorExpr); ok && sel.Sel.Name == field && varOf(info, sel.X) == v {
			return true
		}
	}
	return false
}

// handedOn reports whether region hands one of vars to a call other than
// send (a signer, a header helper: what it does is not read) or self (a
// retry by recursion calling itself for the next attempt), or assigns the
// field of the first (req.Header = h).
func (c *checker) handedOn(region ast.Node, send *ast.CallExpr, self *types.Func, field string, vars ...*types.Var) bool {
	info := c.pass.TypesInfo
	found := false
	ast.Inspect(region, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if setsField(info, n, vars[0], field) {
				found = true
			}
		case *ast.CallExpr:
			if n == send {
				return true
			}
			if self != nil && typeutil.StaticCallee(info, n) == self {
				return true // a retry by recursion's next attempt, not a hand-off
			}
			if dumpsRequest(typeutil.StaticCallee(info, n)) {
				return true // reads the body and puts back what it read, headers untouched
			}
			for _, a := range n.Args {
				if v := varOf(info, a); v != nil && slices.Contains(vars, v) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// knownHost finds a host of idemHosts in the string constants url is
// built from.
func (c *checker) knownHost(url ast.Expr) (string, string) {
	for _, h := range idemHosts {
		if c.res.StringsReach(url, func(s string) bool {
			return strings.Contains(s, "://"+h.host) || strings.Contains(s, "."+h.host) && strings.Contains(s, "://")
		}) {
			return h.host, h.header
		}
	}
	return "", ""
}

// idemKeyFix sets one key per call on a request built before the loop:
// req.Header.Set(name, rand.Text()) right before the loop statement, with
// crypto/rand imported (Go 1.24's rand.Text: 26 random base32 letters).
// Offered only where the edit is mechanical: a request built before a
// loop of the function, a module at go1.24 or later, and a file that
// imports crypto/rand as rand or nothing else named rand in a
// parenthesised import list.
func (c *checker) idemKeyFix(l *retrymodel.Layer, req *types.Var, nr *ast.CallExpr, name string) (analysis.SuggestedFix, bool) {
	if l.Kind != retrymodel.Loop || nr.Pos() >= l.Pos || !atLeastGo124(c.pass.Pkg.GoVersion()) {
		return analysis.SuggestedFix{}, false
	}
	var loopStmt ast.Stmt
	ast.Inspect(l.FuncNode, func(n ast.Node) bool {
		b, ok := n.(*ast.BlockStmt)
		if !ok || loopStmt != nil {
			return loopStmt == nil
		}
		for _, st := range b.List {
			if st == l.Node {
				loopStmt = st
			} else if ls, ok := st.(*ast.LabeledStmt); ok && ls.Stmt == l.Node {
				loopStmt = ls
			}
		}
		return loopStmt == nil
	})
	if loopStmt == nil || loopStmt.Pos() < nr.End() {
		return analysis.SuggestedFix{}, false
	}
	var file *ast.File
	for _, f := range c.pass.Files {
		if f.Pos() <= loopStmt.Pos() && loopStmt.Pos() < f.End() {
			file = f
		}
	}
	if file == nil {
		return analysis.SuggestedFix{}, false
	}
	var edits []analysis.TextEdit
	imported := false
	var block *ast.GenDecl
	for _, imp := range file.Imports {
		path := strings.Trim(imp.Path.Value, "`\"")
		elems := strings.Split(path, "/")
		local := elems[len(elems)-1]
		if len(elems) > 1 && len(local) > 1 && local[0] == 'v' && strings.Trim(local[1:], "0123456789") == "" {
			local = elems[len(elems)-2] // math/rand/v2 is rand
		}
		if imp.Name != nil {
			local = imp.Name.Name
		}
		switch {
		case path == "crypto/rand" && local == "rand":
			imported = true
		case local == "rand":
			return analysis.SuggestedFix{}, false // another rand in the file
		}
	}
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Lparen.IsValid() && block == nil {
			block = g
		}
	}
	if !imported {
		if block == nil {
			return analysis.SuggestedFix{}, false
		}
		edits = append(edits, analysis.TextEdit{Pos: block.Lparen + 1, End: block.Lparen + 1, NewText: []byte("\n\t\"crypto/rand\"")})
	}
	indent := strings.Repeat("\t", c.pass.Fset.Position(loopStmt.Pos()).Column-1)
	text := fmt.Sprintf("%s.Header.Set(%q, rand.Text()) // one key for every attempt of this call\n%s", req.Name(), name, indent)
	edits = append(edits, analysis.TextEdit{Pos: loopStmt.Pos(), End: loopStmt.Pos(), NewText: []byte(text)})
	return analysis.SuggestedFix{Message: "set one " + name + " for every attempt of the call", TextEdits: edits}, true
}

// atLeastGo124 reports a language version that has crypto/rand.Text.
func atLeastGo124(v string) bool {
	if v == "" {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(v, "go%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 1 || major == 1 && minor >= 24
}

// dumpsRequest reports httputil.DumpRequest and DumpRequestOut: they read
// the body and set it back to the bytes they read, so a drained body stays
// drained and a full one full, and they change no header.
func dumpsRequest(fn *types.Func) bool {
	return fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "net/http/httputil" &&
		(fn.Name() == "DumpRequest" || fn.Name() == "DumpRequestOut")
}
