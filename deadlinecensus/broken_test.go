package deadlinecensus

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// brokenModule writes a module of a pipeline (llm, from testdata), its
// caller with a 5s deadline (api), a package with a syntax error (broken)
// and one that imports it (uses).
func brokenModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	client, err := os.ReadFile(filepath.Join(testdata(t), "llm", "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":        "module example.com/b\n\ngo 1.26\n",
		"llm/client.go": string(client),
		"api/api.go": `package api

import (
	"context"
	"time"

	"example.com/b/llm"
)

func Ask(c *llm.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Complete(ctx, "hi")
}
`,
		"broken/broken.go": "package broken\n\nfunc F() {\n\treturn 1 +\n}\n",
		"uses/uses.go":     "package uses\n\nimport \"example.com/b/broken\"\n\nfunc G() { broken.F() }\n",
	}
	for name, src := range files {
		file := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCommandBrokenPackage: a package with a syntax error is reported as
// go vet does and costs only itself and its importer: the pipeline of the
// other packages is still in the table and still gated, and the exit is 2
// even though the gate fails too. -update rewrites no baseline then.
func TestCommandBrokenPackage(t *testing.T) {
	dir := brokenModule(t)
	t.Chdir(dir)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Command(args, &out, &errb)
		return code, out.String(), errb.String()
	}

	code, stdout, stderr := run("./...")
	if code != exitLoad {
		t.Errorf("exit %d, want %d", code, exitLoad)
	}
	for _, want := range []string{"# example.com/b/broken\n", "broken/broken.go:5:1: ", "# example.com/b/uses\nnot analysed: it imports example.com/b/broken, which has errors"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "pipeline example.com/b/llm.(*Client).Complete") || !strings.Contains(stdout, "api.Ask") {
		t.Errorf("the good packages' row is missing:\n%s", stdout)
	}

	file := filepath.Join(dir, "census.baseline")
	if code, _, stderr := run("-baseline", file, "-update", "./..."); code != exitLoad || !strings.Contains(stderr, "not rewriting") {
		t.Errorf("-update with a broken package: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("-update wrote a baseline from a census that leaves a package out")
	}

	// A baseline of the good packages; the gate still runs on them.
	if code, _, stderr := run("-baseline", file, "-update", "./llm", "./api"); code != exitOK {
		t.Fatalf("-update of the good packages: exit %d:\n%s", code, stderr)
	}
	code, _, stderr = run("-baseline", file, "./...")
	if code != exitLoad {
		t.Errorf("gate with a broken package: exit %d, want %d (errors beat findings)", code, exitLoad)
	}
	if !strings.Contains(stderr, "FAIL: retry can never start: api.Ask") || !strings.Contains(stderr, "gate: failed, 1 of 1 rows") {
		t.Errorf("the gate did not run on the good packages:\n%s", stderr)
	}
}
