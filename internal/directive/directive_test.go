package directive_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/internal/directive"
)

// fake reports every call to bad(), through directive.Filter.
var fake = &analysis.Analyzer{
	Name: "retrystatus",
	Doc:  "test analyzer",
	Run: directive.Filter("retrystatus", func(pass *analysis.Pass) (any, error) {
		for _, f := range pass.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "bad" {
						pass.Reportf(c.Pos(), "bad call")
					}
				}
				return true
			})
		}
		return nil, nil
	}),
}

func TestFilter(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), fake, "a")
}

func TestParse(t *testing.T) {
	src := `package p

//retryvet:p99 40s
func a() {}

//retryvet:pipeline
func b() {}

//retryvet:p99 fast
func c() {}

//retryvet:p99 1s
var x = 1

//retryvet:frobnicate
func d() {}

//retryvet:ignore nosuch reason
func e() {}

//retryvet:pipeline now
func g() {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	s := directive.Parse(fset, []*ast.File{f})
	decl := func(name string) *ast.FuncDecl {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
				return fd
			}
		}
		t.Fatalf("no func %s", name)
		return nil
	}
	if d, _, ok := s.P99(decl("a")); !ok || d != 40*time.Second {
		t.Errorf("P99(a) = %v, %v; want 40s", d, ok)
	}
	if !s.IsPipeline(decl("b")) || s.IsPipeline(decl("a")) {
		t.Errorf("IsPipeline wrong")
	}
	if _, _, ok := s.P99(decl("c")); ok {
		t.Errorf("P99(c) accepted a malformed duration")
	}
	want := []string{
		`"fast" is not a positive duration`,
		`belongs in a function's doc comment`,
		`unknown directive "frobnicate"`,
		`unknown analyzer "nosuch"`,
		`takes no arguments`,
	}
	if len(s.Problems) != len(want) {
		t.Fatalf("got %d problems, want %d: %+v", len(s.Problems), len(want), s.Problems)
	}
	for i, w := range want {
		if !strings.Contains(s.Problems[i].Message, w) {
			t.Errorf("problem %d = %q, want it to contain %q", i, s.Problems[i].Message, w)
		}
		if s.Problems[i].Owner != directive.Owner {
			t.Errorf("problem %d owner = %q, want %q", i, s.Problems[i].Owner, directive.Owner)
		}
	}
}
