package deadlinecensus

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/durconst"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Census is every pipeline of the analysed packages with every entry path
// that reaches it.
type Census struct {
	Pipelines []*Pipeline
	// Truncated names pipelines whose callers were too many to list.
	Truncated []string
	// Limits are the walk's limits this census ran with.
	Limits Limits
}

// A Pipeline is a function that performs a retried remote call.
type Pipeline struct {
	Function string // full name: example.com/svc/llm.(*Client).Complete
	Position string // module-relative file:line:col
	Req      deadline.Requirement
	Callers  []*Row
	// Truncated is set when the walk hit a limit: Callers holds the
	// shortest paths only (see Limits).
	Truncated *Truncation
}

// A Row is one entry path to a pipeline call and the deadline on it.
type Row struct {
	Entry    string
	Kind     string   // main, init, http-handler, goroutine, exported, test, other
	Path     []string // entry ... pipeline
	D        deadline.D
	Source   string // where D is set (module-relative file:line:col), "" if nowhere
	Note     string // how the deadline was read, when it is not a plain duration
	CanStart retrymodel.Tri
	P99      retrymodel.Tri

	// PathPos are the positions of Path's functions (module-relative
	// file:line:col).
	PathPos []string
	// TestFile: the entry is declared in a _test.go file (a test, or a
	// mock's method).
	TestFile bool
	// Place is where the deadline is set, as the baseline keys it: the
	// enclosing function (closures not numbered) and the call, or none,
	// from caller, unknown.
	Place string
	// Reasons say why a verdict is unknown and what would decide it (and,
	// for a test, what its short deadline means).
	Reasons []Reason
}

// Options for a census run.
type Options struct {
	Dir   string // working directory for the package patterns
	Tests bool   // load tests (kind test)
	CHA   bool   // use CHA instead of VTA for the call graph
	// KeepSSA builds SSA bodies for all the user's packages and the call
	// graph, even where no pipeline can be found: the values file's
	// entries are matched against the program's functions and routes
	// (deadline.Unmatched).
	KeepSSA bool
	// Seeds, when not nil, are the files where the probe found that a
	// pipeline may be (probe.go): only the packages that can be linked
	// with theirs are type-checked and modelled (linked).
	Seeds []string
}

// Program is the loaded program the census works on: the user's own
// packages with SSA bodies and their call graph; dependencies are types
// only, and contribute through the retry model's facts.
type Program struct {
	Pkgs     []*packages.Package // initial packages
	Prog     *ssa.Program
	Graph    *callgraph.Graph
	analyzed map[*types.Package]*packages.Package // the packages named on the command line
	all      map[*types.Package]*packages.Package // every loaded package
	module   []*packages.Package                  // packages of the main module(s) not named: their pipelines count
	modDirs  []string
	only     map[*packages.Package]bool // if not nil: the packages linked with the probe's seeds, all that is loaded
	funcs    map[*ssa.Function]bool     // ssautil.AllFunctions(Prog), computed once
	files    map[*token.File]fileOf     // syntax by file, for the baseline's places (lazily)
	tr       *phaseTrace
	// results is the retry model of the analysed and module packages
	// (dependencies' facts folded in), or the error that stopped it.
	results map[*types.Package]*retrymodel.Result
	err     error
	// Broken are the packages left out because they, or an import, have
	// errors; the command reports them and exits 2.
	Broken []*Broken
}

// Load lists the packages, type-checks and runs the retry model over
// them one at a time, dependencies first (facts from every dependency),
// then builds SSA bodies for the user's own packages only (those named and
// the rest of their main module) and their call graph. A dependency's
// syntax and type information live only while its facts are computed:
// its bodies never enter the SSA program, which is where the memory of a
// whole-program census went.
func Load(opts Options, patterns ...string) (*Program, error) {
	tr := newPhaseTrace()
	defer loadGC()()
	cfg := &packages.Config{Mode: listMode, Dir: opts.Dir, Tests: opts.Tests}
	pkgs, err := packages.Load(cfg, patterns...)
	tr.phase("list")
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	p := &Program{tr: tr, Pkgs: pkgs, analyzed: map[*types.Package]*packages.Package{}, all: map[*types.Package]*packages.Package{}}
	initial := map[*packages.Package]bool{}
	for _, pkg := range pkgs {
		if !isTestMain(pkg) {
			initial[pkg] = true
		}
	}
	packages.Visit(pkgs, nil, func(pkg *packages.Package) {
		if !initial[pkg] && !isTestMain(pkg) && pkg.Module != nil && pkg.Module.Main {
			p.module = append(p.module, pkg)
		}
	})
	own := func(pkg *packages.Package) bool {
		return initial[pkg] || (pkg.Module != nil && pkg.Module.Main)
	}

	// The retry model first, each package type-checked just before it
	// is analysed: it needs every dependency's syntax for its facts, and
	// nothing after it does. A test main is neither analysed nor built.
	fset := token.NewFileSet()
	if opts.Seeds != nil {
		if seeds, ok := seedPackages(pkgs, opts.Seeds); ok {
			p.only = linked(pkgs, seeds)
		}
	}
	p.results, p.err = p.retryModel(fset, own)
	tr.phase("types and retry model")
	for _, pkg := range pkgs {
		if initial[pkg] && pkg.Types != nil {
			p.analyzed[pkg.Types] = pkg
			if pkg.Module != nil && pkg.Module.Dir != "" && !slices.Contains(p.modDirs, pkg.Module.Dir) {
				p.modDirs = append(p.modDirs, pkg.Module.Dir)
			}
		}
	}
	packages.Visit(pkgs, nil, func(pkg *packages.Package) {
		if pkg.Types != nil {
			p.all[pkg.Types] = pkg
		}
	})
	// A package with errors costs only itself (and what imports it): the
	// retry model and SSA skip ill-typed packages, the rest is censused.
	p.Broken = brokenPackages(pkgs, own)

	prog := ssa.NewProgram(fset, ssa.InstantiateGenerics)
	bodies := own
	if !opts.KeepSSA && p.err == nil {
		seeds := p.pipelineSeeds()
		if len(seeds) == 0 {
			// Nothing to walk from: no SSA and no call graph, so that a
			// census of a program without pipelines costs about what its
			// type check costs.
			p.Prog, p.Graph, p.funcs = prog, callgraph.New(nil), map[*ssa.Function]bool{}
			tr.phase("no pipelines: no ssa")
			return p, nil
		}
		in := linked(pkgs, seeds)
		bodies = func(pkg *packages.Package) bool { return own(pkg) && in[pkg] }
	}
	packages.Visit(pkgs, nil, func(pkg *packages.Package) {
		if pkg.Types == nil || pkg.IllTyped {
			return
		}
		if bodies(pkg) {
			prog.CreatePackage(pkg.Types, pkg.Syntax, pkg.TypesInfo, true)
		} else {
			prog.CreatePackage(pkg.Types, nil, nil, true) // members only, no bodies
		}
	})
	prog.Build()
	tr.phase("ssa")
	funcs := ssautil.AllFunctions(prog)
	var cg *callgraph.Graph
	if opts.CHA {
		cg = cha.CallGraph(prog)
	} else {
		// nil: VTA builds the CHA graph it starts from lazily, for the call
		// sites it meets, instead of the whole program's (the same edges,
		// much less memory).
		cg = vta.CallGraph(funcs, nil)
	}
	cg.DeleteSyntheticNodes()
	tr.phase("callgraph")
	memProfile()
	p.Prog, p.Graph, p.funcs = prog, cg, funcs
	return p, nil
}

// retryModel runs the retry model over the analysed packages and the rest
// of their module (pipelines may live in packages of the module that were
// not named: census ./cmd/... finds the pipeline in ./llm; their callers
// are still only walked through the named packages), with facts from
// every dependency. A dependency's syntax is dropped once it is analysed.
func (p *Program) retryModel(fset *token.FileSet, own func(*packages.Package) bool) (map[*types.Package]*retrymodel.Result, error) {
	pkgs := p.modelPkgs()
	keep := map[*packages.Package]bool{}
	for _, pkg := range pkgs {
		keep[pkg] = true
	}
	return runModel(fset, pkgs, func(pkg *packages.Package) bool { return keep[pkg] }, func(pkg *packages.Package) bool { return !own(pkg) })
}

// pipelineSeeds are the analysed packages where RunWith may find a
// pipeline (candidate, probe.go): SSA bodies are built only for the
// packages linked with them.
func (p *Program) pipelineSeeds() []*packages.Package {
	var seeds []*packages.Package
	for _, pkg := range p.modelPkgs() {
		if _, ok := candidate(p.results[pkg.Types], pkg.TypesInfo, pkg.Syntax); ok {
			seeds = append(seeds, pkg)
		}
	}
	return seeds
}

// linked is the set of packages that can be linked into one binary with
// a seed: those that import a seed (directly or not), their test
// binaries, and everything they import. Only these can hold a caller of
// a seed's pipeline: a function reaches it by a static call (its package
// imports the seed) or through a value made where the seed is imported,
// and any code that value reaches runs in a binary that imports the
// seed. The set is closed under imports, so its packages' facts need no
// package outside it. The rest of the module (another binary, an
// unrelated library) is left out, so a library whose one pipeline is in
// a test pays for that test's binary, not for the module.
func linked(all, seeds []*packages.Package) map[*packages.Package]bool {
	importers := map[*packages.Package][]*packages.Package{}
	packages.Visit(all, nil, func(pkg *packages.Package) {
		for _, imp := range pkg.Imports {
			importers[imp] = append(importers[imp], pkg)
		}
	})
	up := map[*packages.Package]bool{}
	for len(seeds) > 0 {
		pkg := seeds[len(seeds)-1]
		seeds = seeds[:len(seeds)-1]
		if !up[pkg] {
			up[pkg] = true
			seeds = append(seeds, importers[pkg]...)
		}
	}
	in := map[*packages.Package]bool{}
	var down func(*packages.Package)
	down = func(pkg *packages.Package) {
		if !in[pkg] {
			in[pkg] = true
			for _, imp := range pkg.Imports {
				down(imp)
			}
		}
	}
	for pkg := range up {
		down(pkg)
	}
	return in
}

// seedPackages are the packages that compile the seed files, or false if
// a file is in none (the probe and the load disagree: load it all).
func seedPackages(all []*packages.Package, files []string) ([]*packages.Package, bool) {
	byFile := map[string][]*packages.Package{}
	packages.Visit(all, nil, func(pkg *packages.Package) {
		for _, f := range slices.Concat(pkg.GoFiles, pkg.CompiledGoFiles) {
			byFile[f] = append(byFile[f], pkg)
		}
	})
	var out []*packages.Package
	for _, f := range files {
		pkgs := byFile[f]
		if len(pkgs) == 0 {
			return nil, false
		}
		out = append(out, pkgs...)
	}
	return out, true
}

// modelPkgs are the packages the retry model's results are kept for.
func (p *Program) modelPkgs() []*packages.Package {
	var roots []*packages.Package
	for _, pkg := range append(slices.Clip(p.Pkgs), p.module...) {
		if !isTestMain(pkg) && (p.only == nil || p.only[pkg]) {
			roots = append(roots, pkg)
		}
	}
	return roots
}

// loadGC makes the collector keep the heap within 1.5x of what is live
// (GOGC=50) while packages are type-checked and modelled, and returns the
// function that restores the default. Their syntax and types are most of
// the census's memory, and each package's syntax turns to garbage once
// the retry model has read it: at the default GOGC=100 the heap could
// grow to twice what is live before a collection. A GOGC or GOMEMLIMIT in
// the environment is left as it is.
func loadGC() func() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(50)
	return func() { debug.SetGCPercent(old) }
}

// isTestMain reports whether pkg is the generated main of a test binary.
func isTestMain(pkg *packages.Package) bool {
	return pkg.Name == "main" && strings.HasSuffix(pkg.ID, ".test")
}

// Run takes the census of a loaded program within DefaultLimits.
func Run(p *Program) (*Census, error) { return RunWith(p, DefaultLimits) }

// RunWith takes the census within the given limits.
func RunWith(p *Program, lim Limits) (*Census, error) {
	if p.err != nil {
		return nil, p.err
	}
	results := p.results
	all := p.modelPkgs()

	w := newWalker(p, lim)
	byName := map[string]*Pipeline{}
	var order []string
	for _, pkg := range all {
		res := results[pkg.Types]
		if res == nil {
			continue
		}
		for _, file := range pkg.Syntax {
			for _, d := range file.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, _ := pkg.TypesInfo.Defs[fd.Name].(*types.Func)
				if fn == nil {
					continue
				}
				req, ok := deadline.PipelineOf(res, pkg.TypesInfo, fn)
				if !ok {
					continue
				}
				sfn := p.Prog.FuncValue(fn)
				if sfn == nil {
					continue
				}
				name := deadline.FuncName(sfn)
				pl := byName[name]
				if pl == nil {
					pl = &Pipeline{Function: name, Position: p.posn(fd.Name.Pos()), Req: req}
					byName[name] = pl
					order = append(order, name)
				}
				w.walkInto(pl, sfn, req)
			}
		}
	}
	// Retry layers whose operation the model could not follow to a remote
	// call (it is behind an interface or a function value): the call graph
	// settles it.
	for _, pkg := range all {
		res := results[pkg.Types]
		if res == nil {
			continue
		}
		for _, l := range res.Layers {
			if l.Remote == retrymodel.Yes || l.Func == nil || (l.Kind != retrymodel.Loop && l.Kind != retrymodel.Library) {
				continue
			}
			sfn := p.Prog.FuncValue(l.Func)
			if sfn == nil {
				continue
			}
			name := deadline.FuncName(sfn)
			if byName[name] != nil {
				continue
			}
			via := w.remoteVia(sfn, l, results)
			if via == "" {
				continue
			}
			req, ok := deadline.PipelineAt(res, pkg.TypesInfo, l.Func, retrymodel.Shorten(pkg.Fset, l.Pos))
			if !ok {
				continue
			}
			req.Derivation += "; its operation reaches a remote call through the call graph (" + via + ")"
			pl := &Pipeline{Function: name, Position: p.posn(l.Func.Pos()), Req: req}
			byName[name] = pl
			order = append(order, name)
			w.walkInto(pl, sfn, req)
		}
	}
	p.tr.phase("walk")
	out := &Census{Limits: lim}
	slices.Sort(order)
	for _, name := range order {
		pl := byName[name]
		pl.Callers = dedupRows(pl.Callers)
		for _, r := range pl.Callers {
			r.Place = p.place(r)
			r.Reasons = reasons(pl, r)
		}
		if pl.Truncated != nil {
			out.Truncated = append(out.Truncated, name)
		}
		out.Pipelines = append(out.Pipelines, pl)
	}
	return out, nil
}

// walkInto adds the entry paths to pipeline function fn (all its
// instances) to pl. A pipeline found twice (its function in a package and
// in the package's test variant) is walked within one set of limits.
func (w *walker) walkInto(pl *Pipeline, fn *ssa.Function, req deadline.Requirement) {
	rows, trunc := w.walkPipeline(w.instances(fn), req)
	pl.Callers = append(pl.Callers, rows...)
	if trunc != nil {
		if pl.Truncated == nil {
			pl.Truncated = trunc
		} else {
			pl.Truncated.RowsKept += trunc.RowsKept
		}
	}
}

func dedupRows(rows []*Row) []*Row {
	seen := map[string]bool{}
	var out []*Row
	for _, r := range rows {
		k := r.key() + "|" + r.D.String() + "|" + r.Source
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b *Row) int {
		if (a.Kind == "test") != (b.Kind == "test") {
			if a.Kind == "test" {
				return 1
			}
			return -1
		}
		if c := strings.Compare(a.Entry, b.Entry); c != 0 {
			return c
		}
		if c := strings.Compare(strings.Join(a.Path, " "), strings.Join(b.Path, " ")); c != 0 {
			return c
		}
		return strings.Compare(a.Source, b.Source)
	})
	return out
}

func (r *Row) key() string { return r.Entry + "|" + strings.Join(r.Path, " -> ") }

// posn renders a position relative to the module root (file:line:col).
func (p *Program) posn(pos token.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	ps := p.Prog.Fset.Position(pos)
	name := ps.Filename
	for _, dir := range p.modDirs {
		if rel, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
			return fmt.Sprintf("%s:%d:%d", name, ps.Line, ps.Column)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
	}
	return fmt.Sprintf("%s:%d:%d", filepath.ToSlash(name), ps.Line, ps.Column)
}

// folder returns the duration folder of an analysed function's package.
func (p *Program) folder(cache map[*types.Package]*durconst.Folder) func(*ssa.Function) *durconst.Folder {
	return func(fn *ssa.Function) *durconst.Folder {
		if fn == nil || fn.Pkg == nil {
			return nil
		}
		tp := fn.Pkg.Pkg
		if f, ok := cache[tp]; ok {
			return f
		}
		var f *durconst.Folder
		if pkg := p.all[tp]; pkg != nil && pkg.TypesInfo != nil {
			f = durconst.New(pkg.TypesInfo, pkg.Syntax)
		}
		cache[tp] = f
		return f
	}
}
