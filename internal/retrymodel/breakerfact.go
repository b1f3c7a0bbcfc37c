package retrymodel

import (
	"fmt"
	"go/types"
)

// A breaker built in one package is often run in another: a constructor
// that reads its settings from configuration (krakend's
// gcb.NewCircuitBreaker(cfg, logger)) and a middleware package that runs
// the backend call through it. The constructor's package exports what the
// breaker counts and when it opens; the package that calls the
// constructor reads the breaker as one it built.

// A BreakerFact marks a function that returns a circuit breaker it builds,
// or (Settings) the gobreaker.Settings a breaker is built with elsewhere
// (obsidian-headless: circuitbreaker.HTTPDefault(logger) handed to
// NewCircuitBreaker in the API client).
type BreakerFact struct {
	Settings  bool
	Lib       string
	Name      string
	V2        bool
	Old       bool // Breaker.NoIsSuccessful
	CountsAll bool
	SeesCtx   bool
	Trip      string
	TripAfter int64
	Posn      string // where it is built, file:line
}

func (*BreakerFact) AFact() {}

func (f *BreakerFact) String() string {
	if f.Settings {
		return fmt.Sprintf("returns %s Settings at %s (counts all: %t, opens after %d)", f.Lib, f.Posn, f.CountsAll, f.TripAfter)
	}
	return fmt.Sprintf("builds a %s breaker at %s (counts all: %t)", f.Lib, f.Posn, f.CountsAll)
}

// exportBreakerCtors exports a BreakerFact for each function of the
// package that returns a breaker it builds.
func (r *Result) exportBreakerCtors() {
	if !importsBreakerLib(r.pass.Pkg) {
		return
	}
	r.BreakerCalls() // fills r.breakerCtors
	for fn, b := range r.breakerCtors {
		if fn.Pkg() != r.pass.Pkg || b.New == nil {
			continue
		}
		r.pass.ExportObjectFact(fn, &BreakerFact{
			Lib: b.Lib, Name: b.Name, V2: b.V2, Old: b.NoIsSuccessful, CountsAll: b.CountsAll, SeesCtx: b.SeesCtx,
			Trip: b.Trip, TripAfter: b.TripAfter, Posn: Shorten(r.pass.Fset, b.New.Pos()),
		})
	}
	for _, d := range r.decls {
		if d.Recv != nil || d.Type.TypeParams != nil {
			continue
		}
		fn, _ := r.pass.TypesInfo.Defs[d.Name].(*types.Func)
		if fn == nil || !returnsGobreakerSettings(fn) {
			continue
		}
		ret := soleReturn(d)
		b := &Breaker{Lib: BreakerGobreaker}
		if ret == nil || !r.readSettings(b, d, ret) {
			continue
		}
		r.pass.ExportObjectFact(fn, &BreakerFact{
			Settings: true, Lib: b.Lib, Name: b.Name, Old: b.NoIsSuccessful, CountsAll: b.CountsAll,
			Trip: b.Trip, TripAfter: b.TripAfter, Posn: Shorten(r.pass.Fset, ret.Pos()),
		})
	}
}

// returnsGobreakerSettings reports a function whose one result is a
// gobreaker Settings value.
func returnsGobreakerSettings(fn *types.Func) bool {
	res := fn.Signature().Results()
	if res.Len() != 1 {
		return false
	}
	n, ok := types.Unalias(res.At(0).Type()).(*types.Named)
	return ok && n.Obj().Name() == "Settings" && breakerLib(n.Obj().Pkg()) == BreakerGobreaker
}

// importedBreaker is the breaker a function of another package returns,
// from its fact.
func (r *Result) importedBreaker(fn *types.Func) *Breaker {
	var f BreakerFact
	if fn.Pkg() == r.pass.Pkg || !r.pass.ImportObjectFact(fn, &f) || f.Settings {
		return nil
	}
	return &Breaker{Lib: f.Lib, Name: f.Name, V2: f.V2, NoIsSuccessful: f.Old, CountsAll: f.CountsAll, SeesCtx: f.SeesCtx,
		Trip: f.Trip, TripAfter: f.TripAfter, Posn: f.Posn, Ctor: fn}
}

// importsBreakerLib reports a package that imports a breaker library, or
// a package that does (the breaker's methods need no import of their own:
// cb := gcb.NewCircuitBreaker(cfg); cb.Execute(op)).
func importsBreakerLib(pkg *types.Package) bool {
	for _, p := range pkg.Imports() {
		if breakerLib(p) != "" {
			return true
		}
		for _, q := range p.Imports() {
			if breakerLib(q) != "" {
				return true
			}
		}
	}
	return false
}
