package deadlinecensus

import (
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/packages"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// runModel type-checks (typeCheck, when go/packages did not) and runs the
// retry model over every package reachable from roots, dependencies
// first, and returns its results for the packages keep
// accepts. It is the checker's job done leaner: a dependency's facts are
// kept, but its inspector and its result are dropped once it is analysed,
// and so are its syntax and type information when drop accepts it (its
// importers see its types and facts only). The checker held all of them
// to the end: on prometheus the inspectors alone were 0.9 GB.
func runModel(fset *token.FileSet, roots []*packages.Package, keep, drop func(*packages.Package) bool) (map[*types.Package]*retrymodel.Result, error) {
	a := retrymodel.Analyzer
	if len(a.Requires) != 1 || a.Requires[0] != inspect.Analyzer {
		// The driver below provides the inspector only.
		return nil, fmt.Errorf("internal error: the retry model requires %v, the census provides inspect only", a.Requires)
	}
	var all []*packages.Package
	packages.Visit(roots, nil, func(p *packages.Package) { all = append(all, p) })

	m := &modelRun{
		facts:   map[factKey]analysis.Fact{},
		results: map[*types.Package]*retrymodel.Result{},
		done:    map[*packages.Package]chan struct{}{},
	}
	for _, p := range all {
		m.done[p] = make(chan struct{})
	}
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(m.done[p])
			for _, imp := range p.Imports {
				<-m.done[imp]
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			if p.Types == nil {
				typeCheck(fset, p) // just before its facts: see listMode
			}
			res, err := m.analyse(p)
			m.mu.Lock()
			defer m.mu.Unlock()
			if err != nil && m.err == nil && keep(p) {
				m.err = fmt.Errorf("%s: %v", p.PkgPath, err)
			}
			if res != nil && keep(p) {
				m.results[p.Types] = res
			}
			if drop(p) {
				p.Syntax, p.TypesInfo = nil, nil
			}
		}()
	}
	wg.Wait()
	if m.err != nil {
		return nil, m.err
	}
	return m.results, nil
}

type factKey struct {
	obj types.Object // nil for a package fact
	pkg *types.Package
	typ reflect.Type
}

type modelRun struct {
	mu      sync.Mutex
	facts   map[factKey]analysis.Fact
	results map[*types.Package]*retrymodel.Result
	err     error
	done    map[*packages.Package]chan struct{}
}

// analyse runs the retry model on one package whose imports are done.
func (m *modelRun) analyse(p *packages.Package) (*retrymodel.Result, error) {
	if p.Types == nil || p.TypesInfo == nil || p.IllTyped {
		return nil, nil // no facts without sound types: the package is in Program.Broken
	}
	a := retrymodel.Analyzer
	pass := &analysis.Pass{
		Analyzer:     a,
		Fset:         p.Fset,
		Files:        p.Syntax,
		OtherFiles:   p.OtherFiles,
		IgnoredFiles: p.IgnoredFiles,
		Pkg:          p.Types,
		TypesInfo:    p.TypesInfo,
		TypesSizes:   p.TypesSizes,
		TypeErrors:   p.TypeErrors,
		Module:       passModule(p.Module),
		ResultOf:     map[*analysis.Analyzer]any{inspect.Analyzer: inspector.New(p.Syntax)},
		Report:       func(analysis.Diagnostic) {}, // the analyzers report; the census reads the result
		ReadFile:     func(string) ([]byte, error) { return nil, fmt.Errorf("the census reads no files for the retry model") },
	}
	pass.ImportObjectFact = func(obj types.Object, fact analysis.Fact) bool {
		if obj == nil {
			panic("nil object in ImportObjectFact")
		}
		return m.importFact(factKey{obj: obj, typ: reflect.TypeOf(fact)}, fact)
	}
	pass.ExportObjectFact = func(obj types.Object, fact analysis.Fact) {
		if obj.Pkg() != p.Types {
			panic(fmt.Sprintf("internal error: in package %s: fact exported on object of package %s", p.Types.Path(), obj.Pkg().Path()))
		}
		m.exportFact(factKey{obj: obj, typ: reflect.TypeOf(fact)}, fact)
	}
	pass.ImportPackageFact = func(pkg *types.Package, fact analysis.Fact) bool {
		return m.importFact(factKey{pkg: pkg, typ: reflect.TypeOf(fact)}, fact)
	}
	pass.ExportPackageFact = func(fact analysis.Fact) {
		m.exportFact(factKey{pkg: p.Types, typ: reflect.TypeOf(fact)}, fact)
	}
	pass.AllObjectFacts = func() []analysis.ObjectFact { return m.allObjectFacts(p.Types) }
	pass.AllPackageFacts = func() []analysis.PackageFact { return m.allPackageFacts(p.Types) }
	res, err := a.Run(pass)
	// The inspector is the model's while it runs (a sixth of a kept
	// package's memory); nothing the census asks of a result reads it.
	pass.ResultOf = nil
	if err != nil {
		return nil, err
	}
	r, _ := res.(*retrymodel.Result)
	return r, nil
}

// deps is pkg and every package it imports, directly or not: the packages
// whose facts a pass over pkg sees, as under the checker and go vet.
func deps(pkg *types.Package) map[*types.Package]bool {
	seen := map[*types.Package]bool{}
	var walk func(*types.Package)
	walk = func(p *types.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, q := range p.Imports() {
			walk(q)
		}
	}
	walk(pkg)
	return seen
}

// allObjectFacts lists the object facts of pkg and its dependencies (not
// those of packages analysed beside it), in a stable order.
func (m *modelRun) allObjectFacts(pkg *types.Package) []analysis.ObjectFact {
	in := deps(pkg)
	var out []analysis.ObjectFact
	m.mu.Lock()
	for k, f := range m.facts {
		if k.obj != nil && k.obj.Pkg() != nil && in[k.obj.Pkg()] {
			out = append(out, analysis.ObjectFact{Object: k.obj, Fact: f})
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Object, out[j].Object
		if a.Pkg().Path() != b.Pkg().Path() {
			return a.Pkg().Path() < b.Pkg().Path()
		}
		if a.Pos() != b.Pos() {
			return a.Pos() < b.Pos()
		}
		return reflect.TypeOf(out[i].Fact).String() < reflect.TypeOf(out[j].Fact).String()
	})
	return out
}

// allPackageFacts is allObjectFacts for package facts.
func (m *modelRun) allPackageFacts(pkg *types.Package) []analysis.PackageFact {
	in := deps(pkg)
	var out []analysis.PackageFact
	m.mu.Lock()
	for k, f := range m.facts {
		if k.obj == nil && in[k.pkg] {
			out = append(out, analysis.PackageFact{Package: k.pkg, Fact: f})
		}
	}
	m.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package.Path() != out[j].Package.Path() {
			return out[i].Package.Path() < out[j].Package.Path()
		}
		return reflect.TypeOf(out[i].Fact).String() < reflect.TypeOf(out[j].Fact).String()
	})
	return out
}

// importFact copies a stored fact into fact, as the checker does.
func (m *modelRun) importFact(k factKey, fact analysis.Fact) bool {
	m.mu.Lock()
	f, ok := m.facts[k]
	m.mu.Unlock()
	if ok {
		reflect.ValueOf(fact).Elem().Set(reflect.ValueOf(f).Elem())
	}
	return ok
}

func (m *modelRun) exportFact(k factKey, fact analysis.Fact) {
	m.mu.Lock()
	m.facts[k] = fact
	m.mu.Unlock()
}

func passModule(m *packages.Module) *analysis.Module {
	if m == nil {
		return nil
	}
	return &analysis.Module{Path: m.Path, Version: m.Version, GoVersion: m.GoVersion}
}
