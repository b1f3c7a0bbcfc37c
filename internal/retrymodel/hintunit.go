package retrymodel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// Where does a wait's number come from? A server's retry hint is a count:
// Retry-After gives seconds, retry-after-ms milliseconds. A number parsed
// from one and converted with time.Duration(n) alone is n nanoseconds.

// A HintNumber is a number parsed from a retry hint header.
type HintNumber struct {
	Header string        // the header as the code spells it: "Retry-After"
	Unit   string        // what one of it is: "time.Second", "time.Millisecond"
	Parse  *ast.CallExpr // the strconv call that parsed it
}

// hintUnits are the retry hint headers that carry a count, and its unit.
var hintUnits = map[string]string{"retry-after": "time.Second", "retry-after-ms": "time.Millisecond"}

// HintNumber reports whether e is a number parsed from a retry hint
// header: a strconv.Atoi / ParseInt / ParseUint / ParseFloat of the
// header's value, an integer conversion of one, or a variable or field
// every write of which in this package is one.
func (r *Result) HintNumber(e ast.Expr) (HintNumber, bool) {
	return r.hintNumber(e, make(map[*types.Var]bool))
}

func (r *Result) hintNumber(e ast.Expr, seen map[*types.Var]bool) (HintNumber, bool) {
	info := r.pass.TypesInfo
	e = astutil.Unparen(e)
	switch x := e.(type) {
	case *ast.CallExpr:
		if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			if b, ok := tv.Type.Underlying().(*types.Basic); ok && b.Info()&types.IsNumeric != 0 && !isDurationType(tv.Type) {
				return r.hintNumber(x.Args[0], seen) // int64(n)
			}
			return HintNumber{}, false
		}
		fn := typeutil.StaticCallee(info, x)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "strconv" || len(x.Args) == 0 {
			return HintNumber{}, false
		}
		switch fn.Name() {
		case "Atoi", "ParseInt", "ParseUint", "ParseFloat":
		default:
			return HintNumber{}, false
		}
		if h, ok := r.hintHeader(x.Args[0], seen); ok {
			return HintNumber{Header: h, Unit: hintUnits[strings.ToLower(h)], Parse: x}, true
		}
	case *ast.Ident, *ast.SelectorExpr:
		v := varOf(info, e)
		if v == nil || seen[v] || v.Pkg() != r.pass.Pkg {
			return HintNumber{}, false
		}
		seen[v] = true
		vals, ok := r.Writes(v)
		if !ok || len(vals) == 0 {
			return HintNumber{}, false
		}
		var out HintNumber
		for _, w := range vals {
			h, ok := r.hintNumber(w, seen)
			if !ok {
				return HintNumber{}, false
			}
			out = h
		}
		return out, true
	}
	return HintNumber{}, false
}

// hintHeader reports whether e is the value of a retry hint header:
// h.Get("Retry-After"), h["Retry-After"][0], h.Values("Retry-After")[0]
// for an http.Header h, or a string variable every write of which is one.
func (r *Result) hintHeader(e ast.Expr, seen map[*types.Var]bool) (string, bool) {
	info := r.pass.TypesInfo
	e = astutil.Unparen(e)
	key := func(k ast.Expr) (string, bool) {
		tv, ok := info.Types[k]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			return "", false
		}
		s := constant.StringVal(tv.Value)
		_, known := hintUnits[strings.ToLower(s)]
		return s, known
	}
	isHeader := func(x ast.Expr) bool { return namedIs(info.TypeOf(x), "net/http", "Header") }
	switch x := e.(type) {
	case *ast.CallExpr:
		if sel, ok := astutil.Unparen(x.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Get" && len(x.Args) == 1 && isHeader(sel.X) {
			return key(x.Args[0])
		}
	case *ast.IndexExpr:
		switch in := astutil.Unparen(x.X).(type) {
		case *ast.IndexExpr: // h["Retry-After"][0]
			if isHeader(in.X) {
				return key(in.Index)
			}
		case *ast.CallExpr: // h.Values("Retry-After")[0]
			if sel, ok := astutil.Unparen(in.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Values" && len(in.Args) == 1 && isHeader(sel.X) {
				return key(in.Args[0])
			}
		case *ast.Ident: // s, ok := h["Retry-After"]; s[0]
			if v := varOf(info, in); v != nil && !seen[v] {
				seen[v] = true
				if w, ok := r.Written(v); ok && w.InMap != nil && isHeader(w.InMap.X) {
					return key(w.InMap.Index)
				}
			}
		}
	case *ast.Ident:
		v := varOf(info, x)
		if v == nil || seen[v] {
			return "", false
		}
		seen[v] = true
		if w, ok := r.Written(v); ok && w.Value != nil {
			return r.hintHeader(w.Value, seen)
		}
	}
	return "", false
}

func isDurationType(t types.Type) bool { return namedIs(t, "time", "Duration") }

// UnscaledHint is a time.Duration(n) conversion of a retry hint's number
// with no unit: n nanoseconds.
type UnscaledHint struct {
	Conv *ast.CallExpr
	HintNumber
	// InOperand: the conversion is an operand of another operator, so a
	// product written in its place needs parentheses.
	InOperand bool
}

// UnscaledHints returns the package's time.Duration conversions of a retry
// hint's number that no unit multiplies: the conversion is returned,
// passed, stored or compared as it is, not an operand of * or /.
func (r *Result) UnscaledHints() []UnscaledHint {
	info := r.pass.TypesInfo
	var out []UnscaledHint
	for _, f := range r.pass.Files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if tv, ok := info.Types[call.Fun]; !ok || !tv.IsType() || !isDurationType(tv.Type) {
				return true
			}
			if scaled(stack) {
				return true
			}
			if v := r.heldIn(stack); v != nil {
				// d := time.Duration(n), scaled later (d *= time.Second,
				// d * time.Second) or not: only a d never scaled is n ns.
				if _, ok := r.Writes(v); !ok || r.scaledUse(v) {
					return true
				}
			}
			if h, ok := r.HintNumber(call.Args[0]); ok && h.Unit != "" {
				u := UnscaledHint{Conv: call, HintNumber: h}
				switch stack[len(stack)-2].(type) {
				case *ast.BinaryExpr, *ast.UnaryExpr, *ast.SelectorExpr, *ast.StarExpr:
					u.InOperand = true
				}
				out = append(out, u)
			}
			return true
		})
	}
	return out
}

// scaled reports whether the innermost node of stack (a conversion) is an
// operand of a multiplication or division, through parentheses: a unit is
// applied there, or at least a scale the code chose.
func scaled(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			continue
		case *ast.BinaryExpr:
			return p.Op == token.MUL || p.Op == token.QUO || p.Op == token.SHL
		case *ast.AssignStmt:
			return p.Tok == token.MUL_ASSIGN || p.Tok == token.QUO_ASSIGN
		}
		return false
	}
	return false
}

// heldIn returns the variable the innermost node of stack is assigned to
// or declared with, if any.
func (r *Result) heldIn(stack []ast.Node) *types.Var {
	at := stack[len(stack)-1]
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			at = p
			continue
		case *ast.AssignStmt:
			for j, rhs := range p.Rhs {
				if rhs == at && j < len(p.Lhs) {
					return varOf(r.pass.TypesInfo, p.Lhs[j])
				}
			}
		case *ast.ValueSpec:
			for j, val := range p.Values {
				if val == at && j < len(p.Names) {
					return varOf(r.pass.TypesInfo, p.Names[j])
				}
			}
		}
		return nil
	}
	return nil
}

// scaledUse reports whether v is an operand of a multiplication or
// division anywhere in the package.
func (r *Result) scaledUse(v *types.Var) bool {
	for _, f := range r.pass.Files {
		if contains(f, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			return ok && (b.Op == token.MUL || b.Op == token.QUO) &&
				(varOf(r.pass.TypesInfo, b.X) == v || varOf(r.pass.TypesInfo, b.Y) == v)
		}) {
			return true
		}
	}
	return false
}
