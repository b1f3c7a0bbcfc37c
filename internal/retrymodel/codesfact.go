package retrymodel

import (
	"fmt"
	"go/types"
)

// CodesFact is exported for an exported package variable, an exported
// function without parameters, or an exported field written once by its
// package (its default), that holds or returns a constant list (or set)
// of status codes, so a membership test in an importing package reads
// the codes (CodeSet).
type CodesFact struct {
	Name  string // pkg.Var, pkg.F
	Posn  string // dir/file.go:line of the declaration
	Codes []int
}

// AFact marks CodesFact as an analysis fact.
func (*CodesFact) AFact() {}

func (f *CodesFact) String() string { return fmt.Sprintf("status codes %v", f.Codes) }

// exportCodeSets exports a CodesFact for every exported package variable
// written once with a code set that holds an HTTP status, and every
// exported function that returns one.
func (r *Result) exportCodeSets() {
	for _, fn := range r.funcsInOrder() {
		d := r.decls[fn]
		if !fn.Exported() {
			continue
		}
		if codes, ok := r.returnedSet(d, 0); ok && anyHTTPStatus(codes) {
			r.pass.ExportObjectFact(fn, &CodesFact{Name: FuncName(fn), Posn: Shorten(r.pass.Fset, d.Pos()), Codes: codes})
		}
	}
	scope := r.pass.Pkg.Scope()
	for _, name := range scope.Names() {
		// An exported field of an exported struct type written once with
		// a code set: its default (defaultSet).
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && tn.Exported() && !tn.IsAlias() {
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				for i := range st.NumFields() {
					f := st.Field(i)
					if !f.Exported() || f.Embedded() {
						continue
					}
					if codes, name, posn, ok := r.fieldDefault(f, 0); ok && anyHTTPStatus(codes) {
						r.pass.ExportObjectFact(f, &CodesFact{Name: r.pass.Pkg.Name() + "." + name + " by default", Posn: posn, Codes: codes})
					}
				}
			}
		}
		v, ok := scope.Lookup(name).(*types.Var)
		if !ok || !v.Exported() {
			continue
		}
		codes, _, ok := r.varSet(v, 0)
		if ok && anyHTTPStatus(codes) {
			r.pass.ExportObjectFact(v, &CodesFact{Name: v.Pkg().Name() + "." + v.Name(), Posn: Shorten(r.pass.Fset, v.Pos()), Codes: codes})
		}
	}
}

func anyHTTPStatus(codes []int) bool {
	for _, c := range codes {
		if c >= 100 && c <= 599 {
			return true
		}
	}
	return false
}
