package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// probeModule is a module with the census's pipeline in llm (from the
// census's testdata), its caller in cmd/app and a package that does not
// retry (quiet).
func probeModule(t *testing.T) string {
	t.Helper()
	client, err := os.ReadFile(filepath.Join("..", "..", "deadlinecensus", "testdata", "llm", "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	// The probe's own quiet lookalikes: a readiness poll, pagination, one call.
	quiet, err := os.ReadFile(filepath.Join("..", "..", "deadlinecensus", "testdata", "probe", "quiet", "quiet.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":        "module example.com/p\n\ngo 1.26\n",
		"llm/client.go": string(client),
		"cmd/app/main.go": `package main

import (
	"context"
	"time"

	"example.com/p/llm"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	(&llm.Client{}).Complete(ctx, "hi")
}
`,
		"quiet/quiet.go": string(quiet),
	}
	return writeModule(t, files)
}

const probeNone = "probe: no pipeline, nothing loaded"

// TestCensusProbe: retryvet census first asks go vet whether a pipeline
// can be there (the probe), and loads the whole program only then.
func TestCensusProbe(t *testing.T) {
	trace := []string{"RETRYVET_CENSUS_TRACE=1"}
	t.Run("no pipeline", func(t *testing.T) {
		dir := probeModule(t)
		for _, name := range []string{"llm/client.go", "cmd/app/main.go"} {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := run(t, dir, trace, "census", "./...")
		if code != 0 || !strings.Contains(string(stdout), "no pipelines found") {
			t.Errorf("exit %d:\n%s\n%s", code, stdout, stderr)
		}
		if !strings.Contains(string(stderr), probeNone) || strings.Contains(string(stderr), "census: ssa") {
			t.Errorf("the probe did not settle it:\n%s", stderr)
		}
	})
	// The pipeline is in a package of the module the patterns do not name:
	// the census counts it, so the probe looks there too (and, for
	// ./quiet/..., finds it and leaves the answer to the full census).
	t.Run("pipeline in a package not named", func(t *testing.T) {
		dir := probeModule(t)
		code, stdout, stderr := run(t, dir, trace, "census", "./cmd/...")
		if code != 0 || !strings.Contains(string(stdout), "pipeline example.com/p/llm.(*Client).Complete") || !strings.Contains(string(stdout), "app.main") {
			t.Errorf("exit %d, the pipeline or its caller is missing:\n%s\n%s", code, stdout, stderr)
		}
		if strings.Contains(string(stderr), probeNone) {
			t.Errorf("the probe missed the pipeline:\n%s", stderr)
		}
	})
	// go vet fails on a package with errors: the census loads the program
	// and reports the package as it always does.
	t.Run("broken package", func(t *testing.T) {
		dir := writeModule(t, map[string]string{
			"go.mod":           "module example.com/b\n\ngo 1.26\n",
			"broken/broken.go": "package broken\n\nfunc F() {\n\treturn 1 +\n}\n",
		})
		code, stdout, stderr := run(t, dir, trace, "census", "./...")
		if code != 2 || !strings.Contains(string(stderr), "broken/broken.go:5:1: ") || strings.Contains(string(stderr), probeNone) {
			t.Errorf("exit %d, want 2 with the error:\n%s\n%s", code, stdout, stderr)
		}
	})
	// The probe's report names the file: the census loads what can be
	// linked with it, and its gate runs as before.
	t.Run("gate", func(t *testing.T) {
		dir := probeModule(t)
		base := filepath.Join(dir, "census.baseline")
		if code, _, stderr := run(t, dir, nil, "census", "-baseline", base, "-update", "./..."); code != 0 {
			t.Fatalf("-update: exit %d\n%s", code, stderr)
		}
		code, _, stderr := run(t, dir, trace, "census", "-baseline", base, "./...")
		if !strings.Contains(string(stderr), "probe: a pipeline may be in 1 files") || !strings.Contains(string(stderr), "FAIL: retry can never start: app.main") || code != 1 {
			t.Errorf("exit %d, want the gate to fail on app.main's 5s:\n%s", code, stderr)
		}
	})
}
