package deadlinecensus

import (
	"fmt"
	"go/ast"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/infra"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// The proxy or mesh in front of the module (internal/infra): a route that
// serves a handler of the module cuts the request off at its timeout, and
// the handler's request context is cancelled then (the proxy resets the
// stream or closes the connection, and net/http cancels the context of a
// request whose connection is gone). So a route timeout is a deadline on
// the handler's request context, set in a YAML file.

// infraHandlers checks the routes in front of this package's handlers
// (vet mode): a route whose timeout is below what the pipeline behind a
// handler needs, or below its p99, is reported at the handler's
// registration, naming the manifest position. The manifests are the ones
// a driver declared (infra.Declared: the -manifests flag); the analyzer
// reads none from disk, and a malformed one is the driver's error to
// report, not a finding.
func (a *analysis_) infraHandlers(fns []*ssa.Function) {
	if len(a.pass.Files) == 0 {
		return
	}
	dir := filepath.Dir(a.pass.Fset.File(a.pass.Files[0].Pos()).Name())
	regs := infra.Registrations(a.pass.TypesInfo, a.pass.Files)
	if len(regs) == 0 {
		return
	}
	cfg := infra.Declared()
	if cfg == nil {
		return
	}
	if len(a.handlers) == 0 || len(cfg.Routes) == 0 {
		return
	}
	lits := litFuncs(fns)
	for _, reg := range regs {
		h := regFunc(reg, lits, fns)
		hns := a.handlers[h]
		if len(hns) == 0 {
			continue
		}
		for _, rt := range cfg.For(reg.Pattern, dir) {
			t, ok := rt.Deadline()
			if !ok {
				continue
			}
			d := deadline.D{Kind: deadline.Known, D: t.D}
			where := infraWhere(rt, t)
			for _, hn := range hns {
				for _, n := range hn.need.Needs {
					via := strings.Join(append(slices.Clip(hn.steps), n.Via...), " -> ")
					if n.Req.CanStart(d) == retrymodel.No {
						a.report(reg.Call.Pos(), deadline.NeverStartsMessage(n.Req, t.D, where)+"; raise the route's timeout on this path; path: "+via)
					}
					if n.Req.CoversP99(d) == retrymodel.No {
						a.report(reg.Call.Pos(), deadline.BelowP99Message(n.Req, t.D)+" ("+where+"); path: "+via)
					}
				}
			}
		}
	}
}

// infraWhere says where a route's deadline comes from, for a message:
// "envoy route /v1/complete timeout, Envoy default 15s (...), deploy/envoy.yaml:25".
func infraWhere(rt *infra.Route, t infra.Timeout) string {
	s := rt.Label() + " " + t.Field
	if t.Default {
		s += ", " + t.Source
	}
	return s + ", " + t.Pos.String()
}

// litFuncs maps the function literals of fns to their SSA functions.
func litFuncs(fns []*ssa.Function) map[*ast.FuncLit]*ssa.Function {
	out := map[*ast.FuncLit]*ssa.Function{}
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if lit, ok := fn.Syntax().(*ast.FuncLit); ok {
			out[lit] = fn
		}
		for _, anon := range fn.AnonFuncs {
			add(anon)
		}
	}
	for _, fn := range fns {
		if fn.Parent() == nil {
			add(fn)
		}
	}
	return out
}

// regFunc is the SSA function of a registration's handler.
func regFunc(reg infra.Registration, lits map[*ast.FuncLit]*ssa.Function, fns []*ssa.Function) *ssa.Function {
	if reg.Lit != nil {
		return lits[reg.Lit]
	}
	for _, fn := range fns {
		if fn.Object() == reg.Func {
			return fn
		}
	}
	return nil
}

// The census side: the walker puts a route's timeout on the request
// context of the handlers it serves.

// infraLog is where the census says which manifests it skipped or could
// not read.
var infraLog io.Writer = os.Stderr

type infraIndex struct {
	sets  map[*ssa.Function][]deadline.Set
	notes map[token.Pos]string
	files map[string]*token.File
}

// infraSets returns the deadlines the routes in front of handler fn put on
// its request context.
func (w *walker) infraSets(fn *ssa.Function) []deadline.Set {
	if w.infra == nil {
		w.infra = w.indexInfra()
	}
	return w.infra.sets[fn]
}

// noteInfra says, on a row whose deadline a route sets, which route and
// where: "infra timeout 15s (envoy route /v1/complete, deploy/envoy.yaml:25; Envoy default 15s ...)".
func (w *walker) noteInfra(row *Row, d deadline.D) {
	if w.infra == nil || d.Set == nil {
		return
	}
	if note, ok := w.infra.notes[d.Set.Pos]; ok && d.Kind == deadline.Known {
		row.Note = note
	}
}

func (w *walker) indexInfra() *infraIndex {
	ix := &infraIndex{sets: map[*ssa.Function][]deadline.Set{}, notes: map[token.Pos]string{}, files: map[string]*token.File{}}
	lits := map[*ast.FuncLit]*ssa.Function{}
	for fn := range w.p.funcs {
		if lit, ok := fn.Syntax().(*ast.FuncLit); ok && w.isAnalyzed(fn) {
			lits[lit] = fn
		}
	}
	logged := map[string]bool{}
	for _, pkg := range w.p.analyzed {
		if len(pkg.GoFiles) == 0 || pkg.TypesInfo == nil {
			continue
		}
		regs := infra.Registrations(pkg.TypesInfo, pkg.Syntax)
		if len(regs) == 0 {
			continue
		}
		dir := filepath.Dir(pkg.GoFiles[0])
		cfg := infra.ForDir(dir)
		if cfg == nil {
			continue
		}
		if !logged[cfg.Root] {
			logged[cfg.Root] = true
			for _, p := range cfg.Errors {
				fmt.Fprintf(infraLog, "retryvet: manifest %s\n", p)
			}
			for _, p := range cfg.Skipped {
				fmt.Fprintf(infraLog, "retryvet: manifest %s\n", p)
			}
		}
		if len(cfg.Routes) == 0 {
			continue
		}
		for _, reg := range regs {
			var h *ssa.Function
			if reg.Lit != nil {
				h = lits[reg.Lit]
			} else if reg.Func != nil {
				h = w.p.Prog.FuncValue(reg.Func)
			}
			if h == nil {
				continue
			}
			for _, rt := range cfg.For(reg.Pattern, dir) {
				t, ok := rt.Deadline()
				if !ok {
					continue
				}
				pos := ix.pos(w.p.Prog.Fset, cfg.Root, t.Pos)
				if !pos.IsValid() {
					continue
				}
				ix.sets[h] = append(ix.sets[h], deadline.Set{D: t.D, Known: true, Pos: pos, Call: rt.Label()})
				note := fmt.Sprintf("infra timeout %s (%s, %s)", deadline.Format(t.D), rt.Label(), t.Pos)
				if t.Default {
					note = fmt.Sprintf("infra timeout %s (%s, %s; %s)", deadline.Format(t.D), rt.Label(), t.Pos, t.Source)
				} else if t.Field != "timeout" {
					note = fmt.Sprintf("infra timeout %s (%s %s, %s)", deadline.Format(t.D), rt.Label(), t.Field, t.Pos)
				}
				ix.notes[pos] = note
			}
		}
	}
	return ix
}

// pos turns a manifest position into a token.Pos of the program's file
// set (the manifest is added to it), so the census renders it like a Go
// position: deploy/envoy.yaml:25:7.
func (ix *infraIndex) pos(fset *token.FileSet, root string, p infra.Pos) token.Pos {
	abs := filepath.Join(root, filepath.FromSlash(p.File))
	tf := ix.files[abs]
	if tf == nil {
		data, err := os.ReadFile(abs)
		if err != nil {
			return token.NoPos
		}
		tf = fset.AddFile(abs, -1, len(data))
		tf.SetLinesForContent(data)
		ix.files[abs] = tf
	}
	if p.Line < 1 || p.Line > tf.LineCount() {
		return token.NoPos
	}
	return tf.LineStart(p.Line) + token.Pos(max(p.Col-1, 0))
}
