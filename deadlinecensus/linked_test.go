package deadlinecensus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestSeedsChangeNothing: a census that loads only the packages linked
// with the probe's seeds (the files where a pipeline may be) is the census
// of the whole program, row for row, on the census's testdata (callers
// through interfaces and function values, tests, handlers behind
// infrastructure), on the incident, and on a worker that reaches the
// pipeline through an interface of its own, from a package that does not
// import the pipeline's (ifaceModule: it is linked with it by main only).
func TestSeedsChangeNothing(t *testing.T) {
	for _, dir := range []string{testdata(t), incidentDir(t), ifaceModule(t)} {
		full, err := Load(Options{Dir: dir, Tests: true}, "./...")
		if err != nil {
			t.Fatal(err)
		}
		var seeds []string
		for _, pkg := range full.modelPkgs() {
			if pos, ok := candidate(full.results[pkg.Types], pkg.TypesInfo, pkg.Syntax); ok {
				seeds = append(seeds, pkg.Fset.Position(pos).Filename)
			}
		}
		if len(seeds) == 0 {
			t.Fatalf("%s: no seeds", dir)
		}
		narrow, err := Load(Options{Dir: dir, Tests: true, Seeds: seeds}, "./...")
		if err != nil {
			t.Fatal(err)
		}
		if narrow.only == nil {
			t.Fatalf("%s: the seeds %v matched no package", dir, seeds)
		}
		checked := func(p *Program) (n int) {
			packages.Visit(p.Pkgs, nil, func(pkg *packages.Package) {
				if pkg.Types != nil {
					n++
				}
			})
			return n
		}
		t.Logf("%s: %d seeds, %d packages type-checked of %d", dir, len(seeds), checked(narrow), checked(full))
		want, got := censusJSON(t, full), censusJSON(t, narrow)
		if dir != testdata(t) && dir != incidentDir(t) && !bytes.Contains(want, []byte("worker.(*Worker).Handle")) {
			t.Fatalf("%s: the whole-program census lacks the worker's row, so the case tests nothing:\n%s", dir, want)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s: the census with seeds differs:\n--- whole program\n%s\n--- seeds\n%s", dir, want, got)
		}
	}
}

// ifaceModule: llm's pipeline (from testdata), a worker that calls it
// through its own interface with a 40s deadline and does not import llm,
// and the main that hands it an *llm.Client.
func ifaceModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	client, err := os.ReadFile(filepath.Join(testdata(t), "llm", "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":        "module example.com/w\n\ngo 1.26\n",
		"llm/client.go": string(client),
		"worker/worker.go": `package worker

import (
	"context"
	"time"
)

type Completer interface {
	Complete(ctx context.Context, prompt string) (string, error)
}

type Worker struct{ C Completer }

func (w *Worker) Handle(prompt string) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	w.C.Complete(ctx, prompt)
}
`,
		"cmd/app/main.go": `package main

import (
	"example.com/w/llm"
	"example.com/w/worker"
)

func main() {
	w := &worker.Worker{C: &llm.Client{}}
	w.Handle("hi")
}
`,
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

// TestSeedsLeaveOut: a package that no binary links with the pipeline
// (tools, its test and its own dependency) is neither type-checked nor
// modelled; the pipeline's caller is.
func TestSeedsLeaveOut(t *testing.T) {
	dir := brokenModule(t) // llm, api (its caller), broken, uses
	for name, src := range map[string]string{
		"broken/broken.go": "package broken\n\nfunc F() {}\n",
		"tools/tools.go":   "package tools\n\nimport \"net/http/httptest\"\n\nfunc New() *httptest.Server { return nil }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(Options{Dir: dir, Tests: true, Seeds: []string{filepath.Join(dir, "llm", "client.go")}}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	packages.Visit(p.Pkgs, nil, func(pkg *packages.Package) {
		if pkg.Types != nil {
			checked[pkg.PkgPath] = true
		}
	})
	for _, path := range []string{"example.com/b/tools", "net/http/httptest", "example.com/b/uses", "example.com/b/broken"} {
		if checked[path] {
			t.Errorf("%s type-checked: nothing linked with llm imports it", path)
		}
	}
	if !checked["example.com/b/api"] || !checked["example.com/b/llm"] {
		t.Errorf("the pipeline or its caller was left out: %v", checked)
	}
	c, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Pipelines) != 1 || len(c.Pipelines[0].Callers) == 0 {
		t.Errorf("want llm's pipeline and api's row, got %+v", c.Pipelines)
	}
}

func censusJSON(t *testing.T, p *Program) []byte {
	t.Helper()
	c, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, c, "json", WriteOptions{Tests: true}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
