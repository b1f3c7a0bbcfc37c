package deadline

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

const src = `package p

import (
	"context"
	"time"
)

const budget = 20*time.Second + 2*time.Second

func use(ctx context.Context) {}

func withBudget(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 35*time.Second)
}

func viaHelper() {
	ctx, cancel := withBudget(context.Background())
	defer cancel()
	use(ctx)
}

func nested() {
	outer, c1 := context.WithTimeout(context.Background(), budget)
	defer c1()
	inner, c2 := context.WithTimeout(outer, 300*time.Second)
	defer c2()
	use(inner)
}

func fromNow(ctx context.Context) {
	ctx, cancel := context.WithDeadline(ctx, time.Now().Add(30*time.Second))
	defer cancel()
	use(ctx)
}

func branch(ctx context.Context, short bool) {
	if short {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Second)
		defer cancel()
	}
	use(ctx)
}

func closure() {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	go func() { use(ctx) }()
}
`

func build(t *testing.T) *ssa.Package {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage("p", ""), []*ast.File{f}, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// useArg returns the argument of the first call to use in fn.
func useArg(fn *ssa.Function) ssa.Value {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if c, ok := instr.(ssa.CallInstruction); ok {
				if callee := c.Common().StaticCallee(); callee != nil && callee.Name() == "use" {
					return c.Common().Args[0]
				}
			}
		}
	}
	return nil
}

func TestTrace(t *testing.T) {
	pkg := build(t)
	tr := &Tracer{}
	for _, tc := range []struct {
		fn   string
		want string
	}{
		{"viaHelper", "35s"},
		{"nested", "22s"},
		{"fromNow", "30s"},
		{"branch", "unknown"},
		{"closure$1", "40s"},
	} {
		fn := pkg.Func(tc.fn)
		if fn == nil {
			fn = pkg.Func("closure").AnonFuncs[0]
		}
		f := tr.Trace(useArg(fn))
		if f.Origin == FreeVar {
			f2, ok := tr.ResolveFreeVar(fn, f.Index, f.Deref)
			if !ok {
				t.Fatalf("%s: free variable not resolved", tc.fn)
			}
			f = f2
		}
		if got := Summarize(f).String(); got != tc.want {
			t.Errorf("%s: deadline %s, want %s (flow %+v)", tc.fn, got, tc.want, f)
		}
	}
}

const loopSrc = `package q

import "context"

type stage interface {
	Exec(ctx context.Context) (context.Context, error)
}

func use(ctx context.Context) {}

func run(ctx context.Context, stages []stage) {
	var err error
	for _, s := range stages {
		ctx, err = s.Exec(ctx)
		if err != nil {
			return
		}
	}
	use(ctx)
}
`

// A context reassigned from itself in a loop (ctx, err = s.Exec(ctx)) is
// still the parameter.
func TestTraceLoop(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "q.go", loopSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage("q", ""), []*ast.File{f}, 0)
	if err != nil {
		t.Fatal(err)
	}
	fl := (&Tracer{}).Trace(useArg(pkg.Func("run")))
	if fl.Origin != Param || fl.Index != 0 {
		t.Errorf("got %+v, want parameter 0", fl)
	}
}

const chainSrc = `package r

import (
	"context"
	"time"
)

type key int

func use(ctx context.Context) {}

func withA(ctx context.Context) context.Context { return context.WithValue(ctx, key(1), 1) }
func withB(ctx context.Context) context.Context { return context.WithValue(ctx, key(2), 2) }

func run() {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	ctx = withA(ctx)
	ctx = withB(ctx)
	ctx = withA(ctx)
	ctx = withB(ctx)
	ctx = withA(ctx)
	ctx = withB(ctx)
	use(ctx)
}
`

// A chain of helpers that each add a value keeps the deadline.
func TestTraceHelperChain(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "r.go", chainSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage("r", ""), []*ast.File{f}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := Summarize((&Tracer{}).Trace(useArg(pkg.Func("run")))).String(); got != "40s" {
		t.Errorf("deadline %s, want 40s", got)
	}
}
