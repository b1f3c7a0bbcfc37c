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
	"github.com/retryvet/retryvet/internal/values"
)

const defaultsSrc = `package p

import (
	"flag"
	"time"
)

const DefaultTimeout = 30 * time.Second

type Config struct {
	Timeout    time.Duration
	Batch      time.Duration
	Env        time.Duration
	Mixed      time.Duration
	Disagree   time.Duration
	MaxRetries int
}

func Defaults() Config { return Config{Timeout: DefaultTimeout} }

func New(c Config, fromEnv time.Duration) Config {
	if c.Batch == 0 {
		c.Batch = 100 * time.Second
	}
	c.Env = fromEnv
	if c.Mixed == 0 {
		c.Mixed = 5 * time.Second
	}
	if fromEnv > 0 {
		c.Mixed = fromEnv
	}
	c.Disagree = time.Second
	if fromEnv > 0 {
		c.Disagree = 2 * time.Second
	}
	return c
}

var wait = flag.Duration("wait", 20*time.Second, "")

var poll time.Duration

func init() { flag.DurationVar(&poll, "poll", 3*time.Second, "") }

func use(c Config, d time.Duration) {
	_ = c.Timeout    // a: default 30s
	_ = c.Batch      // b: default 100s
	_ = c.Env        // c: unknown
	_ = c.Mixed      // d: default 5s, one other value
	_ = c.Disagree   // e: unknown
	_ = *wait        // f: default 20s (flag -wait)
	_ = poll         // g: default 3s (flag -poll)
	_ = d            // h: a parameter: unknown
	_ = c.MaxRetries // i: from the values file
}
`

func TestDefault(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", defaultsSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check("example.com/p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	v, err := values.Parse(".retryvet.yml", []byte("fields:\n  example.com/p.Config.MaxRetries: 5\n  example.com/p.Config.Env: 45s\n"))
	if err != nil {
		t.Fatal(err)
	}
	values.Use(values.Empty())
	t.Cleanup(values.Reset)
	fold := durconst.New(info, []*ast.File{f})
	var exprs []ast.Expr
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "use" {
			for _, st := range fd.Body.List {
				exprs = append(exprs, st.(*ast.AssignStmt).Rhs[0])
			}
		}
	}
	type want struct {
		d      time.Duration
		ok     bool
		of     string
		others int
	}
	wants := []want{
		{30 * time.Second, true, "c.Timeout", 0},
		{100 * time.Second, true, "c.Batch", 0},
		{0, false, "", 0},
		{5 * time.Second, true, "c.Mixed", 1},
		{0, false, "", 0},
		{20 * time.Second, true, "flag -wait", 0},
		{3 * time.Second, true, "flag -poll", 0},
		{0, false, "", 0},
		{0, false, "", 0}, // an int field is not a duration
	}
	for i, e := range exprs {
		if _, ok := fold.Duration(e); ok {
			t.Errorf("case %c: Duration(%s) folds a default without being asked", 'a'+i, types.ExprString(e))
		}
		d, ok, why := fold.Default(e)
		got := want{d, ok, why.Of, why.Others}
		if got != wants[i] {
			t.Errorf("case %c: Default(%s) = %+v, want %+v", 'a'+i, types.ExprString(e), got, wants[i])
		}
		if ok && (!why.Default || !why.At.IsValid()) {
			t.Errorf("case %c: a default without its mark or position: %+v", 'a'+i, why)
		}
	}

	// With the values file: the production value wins, marked as the file's.
	values.Use(v)
	fold = durconst.New(info, []*ast.File{f})
	d, ok, why := fold.Default(exprs[2])
	if !ok || d != 45*time.Second || why.Default || why.Entry == nil || why.Entry.Source() != ".retryvet.yml:3" {
		t.Errorf("c.Env with the file: %v %v %+v", d, ok, why)
	}
	if n, ok := fold.Int(exprs[8]); !ok || n != 5 {
		t.Errorf("c.MaxRetries with the file: %d %v", n, ok)
	}
	if !v.Field("example.com/p.Config.MaxRetries").Used() {
		t.Error("the entry that decided a value is not marked used")
	}
}
