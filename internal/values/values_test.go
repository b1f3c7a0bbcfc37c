package values

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const file = `# what the code cannot show
p99:
  example.com/svc/llm.(*Client).ask: 40s
fields:
  example.com/svc/config.Config.Timeout: 1m30s
  example.com/svc/config.Config.MaxRetries: 5
handlers:
  example.com/svc/api.(*Server).Complete: 30s
  "POST /v1/complete": 25s
`

func TestParse(t *testing.T) {
	v, err := Parse(".retryvet.yml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if e := v.P99("example.com/svc/llm.(*Client).ask"); e == nil || e.Dur != 40*time.Second || e.Source() != ".retryvet.yml:3" || e.From() != "40s from .retryvet.yml:3" {
		t.Errorf("p99 entry: %+v", e)
	}
	if e := v.Field("example.com/svc/config.Config.Timeout"); e == nil || !e.IsDur || e.Dur != 90*time.Second || e.Line != 5 {
		t.Errorf("duration field: %+v", e)
	}
	if e := v.Field("example.com/svc/config.Config.MaxRetries"); e == nil || !e.IsInt || e.IsDur || e.Int != 5 || e.Line != 6 {
		t.Errorf("integer field: %+v", e)
	}
	if e := v.Handler("example.com/svc/api.(*Server).Complete"); e == nil || e.Dur != 30*time.Second {
		t.Errorf("handler by name: %+v", e)
	}
	if e := v.Handler("example.com/svc/api.(*Server).Other", "/v1/complete", "POST /v1/complete"); e == nil || e.Dur != 25*time.Second || e.Line != 9 {
		t.Errorf("handler by route: %+v", e)
	}
	if e := v.Handler("example.com/svc/api.(*Server).Other", "/v1/other"); e != nil {
		t.Errorf("a handler without an entry matched %+v", e)
	}
	if v.Len() != 5 {
		t.Errorf("Len %d, want 5", v.Len())
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# nothing yet\n", "p99:\nfields: {}\n"} {
		v, err := Parse("v.yml", []byte(src))
		if err != nil || v.Len() != 0 {
			t.Errorf("%q: %v, %d entries", src, err, v.Len())
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"p99:\n  a.F: 40\n", `v.yml:2: p99 of a.F: "40" is not a duration`},
		{"p99:\n  a.F: -3s\n", "v.yml:2: p99 of a.F: -3s is not a positive duration"},
		{"fields:\n  a.T.F: soon\n", `v.yml:2: fields of a.T.F: "soon" is neither a duration (40s) nor an integer`},
		{"timeouts:\n  a.F: 4s\n", `v.yml:1: unknown section "timeouts" (want p99, fields, handlers)`},
		{"p99:\n  a.F: 4s\n  a.F: 5s\n", "v.yml:3: p99 of a.F given twice"},
		{"p99: [a, b]\n", "v.yml:1: section p99: want a mapping of names to values"},
		{"p99:\n  a.F: [1s]\n", "v.yml:2: p99 of a.F: want a single value"},
		{"- p99\n", "v.yml:1: want a mapping with the sections p99, fields, handlers"},
		{"p99:\n  a.F: 4s\n x: [\n", "v.yml:2: did not find expected key"},
	} {
		_, err := Parse("v.yml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
}

func TestSet(t *testing.T) {
	v, err := Parse(".retryvet.yml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Set("fields.example.com/svc/config.Config.Timeout=2m"); err != nil {
		t.Fatal(err)
	}
	e := v.Field("example.com/svc/config.Config.Timeout")
	if e == nil || e.Dur != 2*time.Minute || e.Source() != "-set fields.example.com/svc/config.Config.Timeout=2m" {
		t.Errorf("-set did not override the file: %+v", e)
	}
	if err := v.Set("handlers.GET /v1/x=5s"); err != nil || v.Handler("f", "GET /v1/x") == nil {
		t.Errorf("-set of a route: %v", err)
	}
	for _, bad := range []string{"p99.a.F", "p99.a.F=fast", "timeouts.a.F=4s", "a.F=4s", "p99.=4s"} {
		if err := v.Set(bad); err == nil {
			t.Errorf("-set %s: no error", bad)
		}
	}
}

func TestFindAndResolve(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644)
	if got := Find(sub); got != "" {
		t.Errorf("no values file: Find = %q", got)
	}
	os.WriteFile(filepath.Join(root, FileName), []byte(file), 0o644)
	if got := Find(sub); got != filepath.Join(root, FileName) {
		t.Errorf("Find = %q", got)
	}
	// A nested module is its own root: the outer file does not apply.
	os.WriteFile(filepath.Join(sub, "go.mod"), []byte("module m/a/b\n"), 0o644)
	if got := Find(sub); got != "" {
		t.Errorf("nested module: Find = %q", got)
	}
	v, err := Resolve("", root, []string{"p99.example.com/svc/llm.(*Client).ask=50s"})
	if err != nil {
		t.Fatal(err)
	}
	if e := v.P99("example.com/svc/llm.(*Client).ask"); e == nil || e.Dur != 50*time.Second {
		t.Errorf("Resolve with -set: %+v", e)
	}
	if _, err := Resolve(filepath.Join(root, "nope.yml"), root, nil); err == nil {
		t.Error("a missing explicit file is not an error")
	}
}

func TestIsSource(t *testing.T) {
	for s, want := range map[string]bool{
		".retryvet.yml:3": true, "prod.yaml:1": true, "-set p99.a.F=1s": true,
		"llm/client.go:12": false, "the default p99 setting": false, "": false,
	} {
		if IsSource(s) != want {
			t.Errorf("IsSource(%q) = %v", s, !want)
		}
	}
}
