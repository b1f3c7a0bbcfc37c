package deadline

import (
	"go/constant"
	"go/token"
	"go/types"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/values"
)

// ValueNote says where a deadline's number comes from when it is not a
// constant in the code: "default 30s (cfg.Timeout, set at config/config.go:12)",
// "40s from .retryvet.yml:3 (cfg.Timeout)", or an infrastructure deadline
// from the values file. posn renders a position. "" for a plain constant.
func (d D) ValueNote(posn func(token.Pos) string) string {
	if d.Kind != Known || d.Set == nil {
		return ""
	}
	s := d.Set
	switch {
	case s.From != "":
		return "deadline " + Format(s.D) + " set in front of the handler by infrastructure, from " + s.From
	case s.Why.Entry != nil:
		n := s.Why.Entry.From()
		if s.Expr != "" {
			n += " (" + s.Expr + ")"
		}
		return n
	case s.Why.Default:
		n := "default " + Format(s.D) + " (" + s.Why.Of
		if at := posn(s.Why.At); at != "" {
			n += ", set at " + at
		}
		n += ")"
		if s.Why.Others > 0 {
			n += "; the code also assigns it values that cannot be folded: set its production value in " + values.FileName
		}
		return n
	}
	return ""
}

// HandlerSet returns the deadline the values file says infrastructure sets
// in front of a handler on path (entry first): the entry for the outermost
// function of the path named in its handlers section, by function name or
// by a route it is registered under.
func HandlerSet(prog *ssa.Program, funcs map[*ssa.Function]bool, path []*ssa.Function) (Set, bool) {
	v := values.Current()
	if !v.Has(values.Handlers) {
		return Set{}, false
	}
	if funcs == nil {
		funcs = ssautil.AllFunctions(prog)
	}
	routes := routesOf(prog, funcs)
	for _, fn := range path {
		if e := v.Handler(FuncName(fn), routes[origin(fn)]...); e != nil {
			e.MarkUsed()
			return Set{D: e.Dur, Known: true, Pos: fn.Pos(), Call: "infrastructure", From: e.Source()}, true
		}
	}
	return Set{}, false
}

func origin(fn *ssa.Function) *ssa.Function {
	if o := fn.Origin(); o != nil {
		return o
	}
	return fn
}

var routeCache struct {
	sync.Mutex
	prog   *ssa.Program
	routes map[*ssa.Function][]string
}

func routesOf(prog *ssa.Program, funcs map[*ssa.Function]bool) map[*ssa.Function][]string {
	routeCache.Lock()
	defer routeCache.Unlock()
	if routeCache.prog != prog {
		routeCache.prog, routeCache.routes = prog, Routes(prog, funcs)
	}
	return routeCache.routes
}

// Routes finds handler registrations in funcs: a call that passes a
// constant route ("/v1/complete", "POST /v1/complete") and a handler
// function (mux.HandleFunc, mux.Handle, r.Post, e.POST, ...). A method
// named for an HTTP method adds it to the route: r.Post("/x", h) is
// "POST /x" (and "/x").
func Routes(prog *ssa.Program, funcs map[*ssa.Function]bool) map[*ssa.Function][]string {
	out := map[*ssa.Function][]string{}
	for fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				c := call.Common()
				route := ""
				var h *ssa.Function
				for _, a := range c.Args {
					if k, ok := a.(*ssa.Const); ok && k.Value != nil && k.Value.Kind() == constant.String {
						if s := constant.StringVal(k.Value); route == "" && isRoute(s) {
							route = s
						}
						continue
					}
					if route != "" && h == nil {
						h = handlerOf(prog, a)
					}
				}
				if route == "" || h == nil {
					continue
				}
				h = origin(h)
				out[h] = append(out[h], route)
				if m := methodName(c); m != "" && !strings.Contains(route, " ") {
					out[h] = append(out[h], m+" "+route)
				}
			}
		}
	}
	return out
}

func isRoute(s string) bool {
	if strings.HasPrefix(s, "/") {
		return true
	}
	m, rest, ok := strings.Cut(s, " ")
	return ok && strings.HasPrefix(rest, "/") && m == strings.ToUpper(m) && len(m) >= 3
}

func methodName(c *ssa.CallCommon) string {
	var name string
	if c.IsInvoke() {
		name = c.Method.Name()
	} else if f := c.StaticCallee(); f != nil {
		name = f.Name()
	}
	switch up := strings.ToUpper(name); up {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
		return up
	}
	return ""
}

// handlerOf finds the function behind a handler value: a function, a
// closure, a method value, http.HandlerFunc(f), a value with ServeHTTP.
func handlerOf(prog *ssa.Program, v ssa.Value) *ssa.Function {
	for i := 0; i < 8; i++ {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			if fn := handlerOf(prog, x.X); fn != nil {
				return fn
			}
			// LookupMethod panics on a type without the method: look first.
			if sel := prog.MethodSets.MethodSet(x.X.Type()).Lookup(nil, "ServeHTTP"); sel != nil {
				return prog.MethodValue(sel)
			}
			return nil
		case *ssa.ChangeType:
			v = x.X
		case *ssa.MakeClosure:
			fn, _ := x.Fn.(*ssa.Function)
			if fn != nil && strings.HasSuffix(fn.Name(), "$bound") {
				// a method value s.Complete: the method the wrapper calls
				if obj, ok := fn.Object().(*types.Func); ok {
					if m := prog.FuncValue(obj); m != nil {
						return m
					}
				}
			}
			return fn
		case *ssa.Function:
			return x
		default:
			return nil
		}
	}
	return nil
}

// Unmatched returns the entries of v that name nothing in the program: a
// p99 or handler function that does not exist, a route no handler is
// registered under, a field no struct type has. Entries that decided a
// value are matched whatever their name.
func Unmatched(prog *ssa.Program, funcs map[*ssa.Function]bool, v *values.Values) []*values.Entry {
	if v.Len() == 0 {
		return nil
	}
	if funcs == nil {
		funcs = ssautil.AllFunctions(prog)
	}
	names := map[string]bool{}
	for fn := range funcs {
		names[FuncName(fn)] = true
	}
	routes := map[string]bool{}
	for _, rs := range routesOf(prog, funcs) {
		for _, r := range rs {
			routes[r] = true
		}
	}
	fields := map[string]bool{}
	for _, p := range prog.AllPackages() {
		scope := p.Pkg.Scope()
		for _, n := range scope.Names() {
			tn, ok := scope.Lookup(n).(*types.TypeName)
			if !ok {
				continue
			}
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				for i := 0; i < st.NumFields(); i++ {
					fields[p.Pkg.Path()+"."+n+"."+st.Field(i).Name()] = true
				}
			}
		}
	}
	var out []*values.Entry
	for _, e := range v.Entries() {
		if e.Used() {
			continue
		}
		switch e.Section {
		case values.P99:
			if names[e.Key] {
				continue
			}
		case values.Handlers:
			if names[e.Key] || routes[e.Key] {
				continue
			}
		case values.Fields:
			if fields[e.Key] {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// UnmatchedMessage is the report of an entry that matches nothing.
func UnmatchedMessage(e *values.Entry) string {
	what := map[string]string{
		values.P99:      "no function of the analysed program has this name",
		values.Handlers: "no handler function of the analysed program has this name, and no handler is registered under this route",
		values.Fields:   "no struct type of the analysed program has this field",
	}[e.Section]
	return e.Source() + ": " + e.Section + " entry " + e.Key + " matches nothing: " + what + " (names are written as the census prints them: example.com/svc/llm.(*Client).ask, example.com/svc/config.Config.Timeout)"
}

// SetHere is how a finding at a deadline call names where its number comes
// from: "set here", "set here from the default of flag -timeout at
// tool/main.go:12", "set here from .retryvet.yml:5, cfg.Timeout".
func (d D) SetHere(fset *token.FileSet) string {
	if d.Kind != Known || d.Set == nil {
		return "set here"
	}
	s := d.Set
	switch {
	case s.From != "":
		return "set in front of this handler by infrastructure, from " + s.From
	case s.Why.Entry != nil:
		n := "set here from " + s.Why.Entry.Source()
		if s.Expr != "" {
			n += ", " + s.Expr
		}
		return n
	case s.Why.Default:
		n := "set here from the default of " + s.Why.Of
		if s.Why.At.IsValid() {
			n += " at " + retrymodel.Shorten(fset, s.Why.At)
		}
		return n
	}
	return "set here"
}
