package deadline

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

const pathsSrc = `package s

import (
	"context"
	"time"
)

func use(ctx context.Context) {}

// A variable reassigned in a branch: 1s on one path, the parameter on the other.
func branch(ctx context.Context, short bool) {
	if short {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Second)
		defer cancel()
	}
	use(ctx)
}

// Contexts of different origins merged: background with 5s, the caller's.
func merged(parent context.Context, detached bool) {
	var ctx context.Context
	if detached {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ctx = c
	} else {
		ctx = parent
	}
	use(ctx)
}

// A variable captured by a closure and assigned on two paths.
func captured(fast bool) {
	ctx := context.Background()
	if fast {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
	}
	func() { use(ctx) }()
	ctx = context.TODO()
}

// A helper with two returns.
func pick(slow bool) (context.Context, context.CancelFunc) {
	if slow {
		return context.WithTimeout(context.Background(), 100*time.Second)
	}
	return context.WithTimeout(context.Background(), 10*time.Second)
}

func viaPick(slow bool) {
	ctx, cancel := pick(slow)
	defer cancel()
	use(ctx)
}

// One source on every path: one flow.
func single() {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	for i := 0; i < 3; i++ {
		ctx = context.WithValue(ctx, "k", i)
	}
	use(ctx)
}
`

func describeFlows(fs []Flow) string {
	var out []string
	for _, f := range fs {
		s := Summarize(f).String()
		switch f.Origin {
		case Param:
			s += "+param"
		case Background:
			s += "+background"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func TestTraceAll(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "s.go", pathsSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage("s", ""), []*ast.File{f}, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Tracer{}
	for _, tc := range []struct{ fn, all, merged string }{
		{"branch", "1s+param from caller+param", "unknown"},
		{"merged", "5s+background from caller+param", "unknown"},
		{"viaPick", "100s+background 10s+background", "unknown"},
		{"single", "40s+background", "40s"},
	} {
		arg := useArg(pkg.Func(tc.fn))
		if got := describeFlows(tr.TraceAll(arg)); got != tc.all {
			t.Errorf("%s: TraceAll %s, want %s", tc.fn, got, tc.all)
		}
		if got := Summarize(tr.Trace(arg)).String(); got != tc.merged {
			t.Errorf("%s: Trace (merged) %s, want %s", tc.fn, got, tc.merged)
		}
	}
	// The closure's captured variable: the stores that reach the closure.
	clo := pkg.Func("captured").AnonFuncs[0]
	fl := tr.Trace(useArg(clo))
	if fl.Origin != FreeVar {
		t.Fatalf("captured: %+v", fl)
	}
	fs, ok := tr.ResolveFreeVarAll(clo, fl.Index, fl.Deref)
	if !ok {
		t.Fatal("captured: not resolved")
	}
	if got := describeFlows(fs); got != "2s+background none+background" {
		t.Errorf("captured: %s, want 2s and none (the later TODO does not reach the closure)", got)
	}
}
