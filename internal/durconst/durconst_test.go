package durconst_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
	"time"

	"github.com/retryvet/retryvet/internal/durconst"
)

const src = `package p

import "time"

const base = 20 * time.Second

type Config struct {
	Timeout time.Duration
	Retries int
}

var global = 40 * time.Second

var reassigned = time.Second

func init() { reassigned = 2 * time.Second }

var parsed, _ = time.ParseDuration("1m30s")

func f(n int) {
	cfg := Config{Timeout: 7 * time.Second, Retries: 3}
	secs := 11
	var unknown time.Duration
	_ = base + 2*time.Second                 // a: 22s
	_ = global                               // b: 40s
	_ = cfg.Timeout                          // c: 7s
	_ = time.Duration(secs) * time.Second    // d: 11s
	_ = reassigned                           // e: unknown
	_ = time.Duration(n) * time.Second       // f: unknown
	_ = unknown                              // g: unknown
	_ = (base / 2) + time.Duration(cfg.Retries)*time.Second // h: 13s
}
`

func TestDuration(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	fold := durconst.New(info, []*ast.File{f})
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "f" {
			fn = fd
		}
	}
	want := []struct {
		d  time.Duration
		ok bool
	}{
		{22 * time.Second, true}, {40 * time.Second, true}, {7 * time.Second, true}, {11 * time.Second, true},
		{0, false}, {0, false}, {0, false}, {13 * time.Second, true},
	}
	i := 0
	for _, st := range fn.Body.List {
		as, ok := st.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || as.Lhs[0].(*ast.Ident).Name != "_" {
			continue
		}
		d, ok := fold.Duration(as.Rhs[0])
		if i >= len(want) {
			t.Fatalf("more cases than expectations")
		}
		if ok != want[i].ok || d != want[i].d {
			t.Errorf("case %c: Duration(%s) = %v, %v; want %v, %v", 'a'+i, types.ExprString(as.Rhs[0]), d, ok, want[i].d, want[i].ok)
		}
		i++
	}
	if i != len(want) {
		t.Errorf("checked %d cases, want %d", i, len(want))
	}
}

func TestFormat(t *testing.T) {
	for d, want := range map[time.Duration]string{
		72 * time.Second: "72s", 90 * time.Second: "90s", 15 * time.Minute: "15m", time.Hour: "1h", 90 * time.Minute: "1h30m", 1500 * time.Millisecond: "1.5s",
		500 * time.Millisecond: "500ms", 0: "0s",
	} {
		if got := durconst.Format(d); got != want {
			t.Errorf("Format(%v) = %q, want %q", d, got, want)
		}
	}
}
