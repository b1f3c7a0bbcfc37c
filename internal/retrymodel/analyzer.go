package retrymodel

import (
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"github.com/retryvet/retryvet/internal/directive"
	"github.com/retryvet/retryvet/internal/durconst"
)

// Analyzer finds the retry layers of a package and exports, for every
// function that contains or reaches one, a *FuncFact. It reports nothing;
// the retryvet analyzers require it and read its *Result.
var Analyzer = &analysis.Analyzer{
	Name:       "retrymodel",
	Doc:        "find retry layers and their policies (the model shared by the retryvet analyzers)",
	URL:        "https://github.com/retryvet/retryvet#architecture",
	Run:        run,
	Requires:   []*analysis.Analyzer{inspect.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
	FactTypes:  []analysis.Fact{(*FuncFact)(nil), (*ClientFact)(nil), (*CodesFact)(nil), (*StatusFact)(nil), (*stdDepsFact)(nil), (*BreakerFact)(nil), (*IfaceRetryFact)(nil)},
}

// Result is what the model knows of one package.
type Result struct {
	Layers []*Layer
	// HelperLayers are calls that hand an operation to a retry helper
	// (see helper.go); their policy is the helper's, reported there.
	HelperLayers []*Layer
	Fallbacks    []*Fallback
	Folder       *durconst.Folder
	Dirs         *directive.Set

	pass   *analysis.Pass
	byNode map[ast.Node]*Layer
	// funcs holds the summary of every function declared in the package
	// (FuncDecls by *types.Func; FuncLits by node in lits).
	funcs map[*types.Func]*FuncFact
	lits  map[*ast.FuncLit]*FuncFact
	// ctx is the run that made this result: its value index answers
	// ClosureCalled (closure.go).
	ctx   *pkgCtx
	decls map[*types.Func]*ast.FuncDecl
	// reqHelperDepth bounds builtByHelper's descent through helpers
	// that build a request by calling another (reqhelper.go).
	reqHelperDepth int
	localDefs      map[localDefKey]localDefVal // localDef's answers (eval.go)
	ctxOrigins     map[*types.Func]ctxOrigin   // ctxResult's answers for this package's functions (detach.go)
	assignIdx      map[ast.Node]map[*types.Var]assignCount
	impls          map[*types.Func]*types.Func // interface method -> the package's one implementation
	// concrete: the package's declared non-interface types (reach.go).
	concrete []types.Type
	// ctxRetry: what each function retries on a context parameter (ctxretry.go).
	ctxRetry map[*types.Func]*CtxRetry
	// ctxErr: loops whose classifier retries a context's error (ctxerr.go).
	ctxErr map[*Layer]CtxErrAnswer
	// ifaceImpls and depMeths serve Targets (iface.go).
	ifaceImpls   map[*types.Func][]*types.Func
	depMeths     map[string][]*types.Func
	localMeths   map[string][]*types.Func
	reissues     map[*Layer]*Reissue        // retries without a loop (reissue.go)
	breakerCalls []BreakerCall              // breaker.go, built when first asked
	breakerCtors map[*types.Func]*Breaker   // functions returning a breaker (breakerfact.go)
	sentinelGaps []SentinelGap              // errclass.go
	errTypes     map[*types.Func]types.Type // RetriedErrorType's answers (errtype.go)

	// sentResp: returnsSentResponse's answers (dropresp.go); false
	// while one is being worked out, so a recursion stops.
	sentResp map[*types.Func]bool
	// handed: the parameters handedRemote is following (handed.go).
	handed map[*types.Var]bool

	// writes: every variable's writes (written.go).
	writes map[*types.Var]*written
	// paramArgs: for a parameter of a package function, the arguments its
	// static calls in the package hand it (written.go).
	paramArgs map[*types.Var][]ast.Expr
	cancel    *cancelIndex // cancel.go, built when first asked
	// statusMemo: what StatusOf found for variables and functions (status.go).
	statusMemo map[types.Object]StatusKind
	inert      bool // inert.go

	// mu is held by each analyzer that reads the Result (Hold).
	mu sync.Mutex
}

// Hold takes the package's model for one analyzer's run and returns its
// release. The model fills caches when first asked (statuses, the cancel
// index, interface targets, breaker calls), and the drivers run the
// analyzers of one package at the same time (unitchecker and checker run
// independent analyzers in parallel): unguarded, two of them writing one
// cache is a fatal concurrent map write (seen on prometheus). The
// analyzers of one package then read the model one after the other; go
// vet keeps the cores busy with other packages.
func (r *Result) Hold() (release func()) {
	r.mu.Lock()
	return r.mu.Unlock
}

// LayerOf returns the layer made by node n (a loop, label, recursive
// function or call), or nil.
func (r *Result) LayerOf(n ast.Node) *Layer { return r.byNode[n] }

// Func returns what calling fn reaches: the package's own summary for a
// function declared here, else the fact exported by fn's package. Nil when
// fn reaches no retry layer, makes no remote call and declares nothing.
func (r *Result) Func(fn *types.Func) *FuncFact {
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if f, ok := r.funcs[fn]; ok {
		return f
	}
	if fn.Pkg() == r.pass.Pkg {
		return nil
	}
	var f FuncFact
	if r.pass.ImportObjectFact(fn, &f) {
		return &f
	}
	return nil
}

// Decl returns the declaration of a function of this package.
func (r *Result) Decl(fn *types.Func) *ast.FuncDecl { return r.decls[fn] }

// funcsInOrder returns the package's declared functions in source order.
func (r *Result) funcsInOrder() []*types.Func {
	fns := slices.Collect(maps.Keys(r.decls))
	slices.SortFunc(fns, func(a, b *types.Func) int { return int(a.Pos() - b.Pos()) })
	return fns
}

// pkgCtx carries what the detectors share while one package is analysed.
type pkgCtx struct {
	pass    *analysis.Pass
	info    *types.Info
	fold    *durconst.Folder
	dirs    *directive.Set
	insp    *inspector.Inspector
	res     *Result
	waiter  map[*types.Func]waitInfo   // package functions that wait (sleep helpers)
	raFunc  map[*types.Func]bool       // package functions that read Retry-After
	post    ast.Stmt                   // the post statement of the for loop being read
	helpers map[*types.Func]helperInfo // package functions that retry an operation they are given
	// factories: package functions that return a func value retrying an
	// operation it is given (helper.go).
	factories map[*types.Func]helperInfo
	// handoffs are package functions that retry an operation they are
	// given by handing it to a retry (handoff.go).
	handoffs map[*types.Func]helperInfo
	flags    map[*types.Func]flagSummary // retry flags operations return (opwait.go)
	// synth types the expressions the model builds itself (d *= 2 read as
	// d * 2). They are never written into pass.TypesInfo: other analyzers
	// (buildssa among them) read that map concurrently.
	synth map[ast.Expr]types.Type
	// grown holds growingVars' answers by loop body (policy.go).
	grown map[*ast.BlockStmt]map[*types.Var]growth
	// guards are the guard summaries of package functions (summary.go).
	guards map[*types.Func]guardSummary
	preds  map[*types.Func]Tri // classifier helpers: their answer on success
	// atLeast is set by eval when a value it folded is a lower bound (a
	// wait raised above its schedule by Retry-After).
	atLeast bool
	// firstTurn binds the loop's variables on the turn before the first
	// wait (schedule): what a guard's own reading of the wait folds to.
	firstTurn env
	// defaultAt is set by eval when a value it folded is the default a
	// func field is given there (fieldfunc.go), in the defaults pass.
	defaultAt token.Pos
	hint      *hintState // set while the schedule without Retry-After is folded (hintless.go)
	// shortened and prodFold: package variables tests reassign, and a
	// folder of the production files (prodwaits.go).
	shortened map[*types.Var]bool
	prodFold  *durconst.Folder
	// probes: package functions that only probe a port (remote.go).
	probes map[*types.Func]bool
	// raImported memoizes whether another package's function reads
	// Retry-After for its caller (its fact; wait.go).
	raImported map[*types.Func]bool
	raConsts   map[types.Object]bool // constants naming a hint header that the package uses (wait.go)
	// declsByPos: the package's function declarations by position
	// (funcScope); flagCalls memoizes retryFlagCall.
	declsByPos []*ast.FuncDecl
	flagCalls  map[*types.Var]*ast.CallExpr
}

// typeOf is info.TypeOf that also knows the model's synthetic expressions.
func (p *pkgCtx) typeOf(e ast.Expr) types.Type {
	if t, ok := p.synth[e]; ok {
		return t
	}
	return p.info.TypeOf(e)
}

func run(pass *analysis.Pass) (any, error) {
	if err := ValuesError(); err != nil {
		return nil, err // a malformed values file (values.go)
	}
	p := &pkgCtx{
		pass: pass,
		info: pass.TypesInfo,
		fold: durconst.New(pass.TypesInfo, pass.Files),
		dirs: directive.Parse(pass.Fset, pass.Files),
		insp: pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
	}
	p.res = &Result{
		ctx:    p,
		Folder: p.fold,
		Dirs:   p.dirs,
		pass:   pass,
		byNode: make(map[ast.Node]*Layer),
		funcs:  make(map[*types.Func]*FuncFact),
		lits:   make(map[*ast.FuncLit]*FuncFact),
		decls:  make(map[*types.Func]*ast.FuncDecl),
	}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					p.res.decls[fn] = fd
				}
			}
		}
	}
	if p.markStdDeps() { // inert.go
		p.res.inert = true
		return p.res, nil
	}
	p.res.indexWrites()
	p.indexHelpers()
	p.findLayers()
	p.findReissues()
	p.dataLayers()
	p.findHelpers()
	for p.findHandOffs() { // handoff.go: helpers that hand their func on
		p.findHelpers()
	}
	p.classifyCtxErrs()
	p.findSentinelGaps() // errclass.go
	p.summarize()
	p.exportTransportClients() // transport.go
	p.ctxRetries()
	p.res.exportCodeSets()
	p.res.exportStatusFacts()
	p.res.exportBreakerCtors() // breakerfact.go
	return p.res, nil
}

// findLayers walks every function body once and records the layers. The
// standard library's own loops (the resolver trying each nameserver
// cfg.attempts times, database/sql taking a fresh connection after
// driver.ErrBadConn) are its protocol, which no caller configures or
// drops: they are no retry layers of the program.
func (p *pkgCtx) findLayers() {
	if p.inStd() {
		return
	}
	p.insp.WithStack([]ast.Node{(*ast.ForStmt)(nil), (*ast.RangeStmt)(nil), (*ast.LabeledStmt)(nil), (*ast.CallExpr)(nil), (*ast.FuncDecl)(nil)},
		func(n ast.Node, push bool, stack []ast.Node) bool {
			if !push {
				return true
			}
			fnNode, fn := enclosingFunc(p.info, stack)
			var l *Layer
			switch n := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				l = p.loopLayer(n, fnNode, stack)
			case *ast.LabeledStmt:
				l = p.gotoLayer(n, fnNode, stack)
			case *ast.FuncDecl:
				l = p.recursionLayer(n)
				fnNode = n
				fn, _ = p.info.Defs[n.Name].(*types.Func)
			case *ast.CallExpr:
				l = p.callLayer(n, fnNode, stack)
			}
			if l != nil {
				l.Func, l.FuncNode = fn, fnNode
				p.conflictPolicy(l) // conflict.go
				p.res.Layers = append(p.res.Layers, l)
				p.res.byNode[l.Node] = l
			}
			return true
		})
}

// inStd reports whether the package is the standard library's: it has no
// module (or one with no path, as go/packages gives it), its path no dot, and its files (when GOROOT is known) are under
// GOROOT/src. A module of the user's named without a dot has a module.
func (p *pkgCtx) inStd() bool {
	if p.pass.Module != nil && p.pass.Module.Path != "" || !stdPath(p.pass.Pkg.Path()) || len(p.pass.Files) == 0 {
		return false
	}
	root := build.Default.GOROOT
	if root == "" {
		return true
	}
	name := p.pass.Fset.File(p.pass.Files[0].Pos()).Name()
	return strings.HasPrefix(filepath.ToSlash(name), filepath.ToSlash(filepath.Join(root, "src"))+"/")
}

// enclosingFunc returns the innermost function (FuncDecl or FuncLit) on the
// stack, and the named function that contains it.
func enclosingFunc(info *types.Info, stack []ast.Node) (ast.Node, *types.Func) {
	var node ast.Node
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.FuncLit:
			if node == nil {
				node = n
			}
		case *ast.FuncDecl:
			if node == nil {
				node = n
			}
			fn, _ := info.Defs[n.Name].(*types.Func)
			return node, fn
		}
	}
	return node, nil
}

// Pos helpers used by detectors.
func (p *pkgCtx) short(pos token.Pos) string { return Shorten(p.pass.Fset, pos) }
