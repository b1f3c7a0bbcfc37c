package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/retryvet/retryvet/analyzers"
	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/testmod"
)

// golangciVersion is the golangci-lint the test builds a custom binary of.
const golangciVersion = "v2.15.0"

// customMain is what `golangci-lint custom` builds, without cloning the
// repository: golangci-lint's own cmd/golangci-lint main (commands.Execute)
// plus the blank import of the plugin that its generated plugins.go adds.
const customMain = `package main

import (
	"fmt"
	"os"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	_ "github.com/retryvet/retryvet/plugin"
)

func main() {
	info := commands.BuildInfo{Version: "%s-custom-gcl-retryvet", Commit: "?", Date: "?", GoVersion: "?"}
	if err := commands.Execute(info); err != nil {
		fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %%v\n", err)
		os.Exit(exitcodes.Failure)
	}
}
`

// TestGolangciLint builds a custom golangci-lint v2 with the plugin from
// the module proxy (go mod tidy + go build of a generated main module; no
// git clone), runs it on ../cmd/retryvet/testdata/suite with the suite
// plugin and with the per-analyzer plugins, and checks that every analyzer
// in analyzers.All() reports, under the right linter name, exactly the
// findings the standalone driver reports. It downloads and compiles
// golangci-lint (about 20 s with warm caches, minutes cold), so it runs only with
// RETRYVET_GOLANGCI=1 (.ci/run sets it).
func TestGolangciLint(t *testing.T) {
	if os.Getenv("RETRYVET_GOLANGCI") != "1" {
		t.Skip("set RETRYVET_GOLANGCI=1 to build a custom golangci-lint (slow; .ci/run does)")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(repo, "cmd", "retryvet", "testdata", "suite")
	testmod.Download(t, suite)

	work := t.TempDir()
	gcl := buildCustomGCL(t, repo, work)

	// The documented configurations set p99: 30s; the standalone run
	// assumes the same default p99.
	retrymodel.SetDefaultP99(30 * time.Second)
	want := standaloneFindings(t, suite)
	retrymodel.SetDefaultP99(0)
	if len(analyzers.All()) > 0 && len(want) == 0 {
		t.Fatal("the standalone driver finds nothing on testdata/suite")
	}

	// The documented configurations, as users copy them.
	docs := filepath.Join(repo, "docs", "golangci")
	checkCustomGCL(t, filepath.Join(docs, ".custom-gcl.yml"))

	t.Run("suite", func(t *testing.T) {
		issues := runGCL(t, gcl, suite, work, filepath.Join(docs, ".golangci.yml"))
		var got []string
		for _, is := range issues {
			if is.FromLinter != Name {
				if slices.Contains(Names, is.FromLinter) {
					t.Errorf("issue from linter %q, want %q: %s", is.FromLinter, Name, is.Text)
				}
				continue // a standard linter on the testdata
			}
			// One linter with several analyzers: golangci-lint writes
			// "ANALYZER: message".
			analyzer, msg, ok := strings.Cut(is.Text, ": ")
			if !ok {
				t.Errorf("issue text %q does not start with an analyzer name", is.Text)
				continue
			}
			got = append(got, finding(analyzer, is.Pos.Filename, is.Pos.Line, msg))
		}
		compare(t, got, want)
	})

	t.Run("per-analyzer", func(t *testing.T) {
		issues := runGCL(t, gcl, suite, work, filepath.Join(docs, ".golangci.per-analyzer.yml"))
		var got []string
		for _, is := range issues {
			if is.FromLinter == Name {
				t.Errorf("issue from the suite linter in the per-analyzer configuration: %s", is.Text)
			}
			if !slices.Contains(Names, is.FromLinter) {
				continue // a standard linter on the testdata
			}
			// The linter is the analyzer: the text is the bare message.
			got = append(got, finding(is.FromLinter, is.Pos.Filename, is.Pos.Line, is.Text))
		}
		compare(t, got, want)
	})
}

// checkCustomGCL checks the documented .custom-gcl.yml against what the test
// builds: the same golangci-lint version and the plugin's import path.
func checkCustomGCL(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"version: " + golangciVersion,
		"  - module: github.com/retryvet/retryvet",
		"    import: github.com/retryvet/retryvet/plugin",
	} {
		if !slices.Contains(strings.Split(string(data), "\n"), line) {
			t.Errorf("%s has no line %q", path, line)
		}
	}
}

func buildCustomGCL(t *testing.T, repo, work string) string {
	dir := filepath.Join(work, "custom-gcl")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod := fmt.Sprintf(`module example.com/custom-gcl

go 1.26.0

require (
	github.com/golangci/golangci-lint/v2 %s
	github.com/retryvet/retryvet v0.0.0
)

replace github.com/retryvet/retryvet => %s
`, golangciVersion, repo)
	write(t, filepath.Join(dir, "go.mod"), gomod)
	write(t, filepath.Join(dir, "main.go"), fmt.Sprintf(customMain, golangciVersion))

	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	start := time.Now()
	run(t, dir, env, "go", "mod", "tidy")
	tidy := time.Since(start)
	bin := filepath.Join(work, "custom-gcl-bin")
	start = time.Now()
	run(t, dir, env, "go", "build", "-o", bin, ".")
	build := time.Since(start)
	t.Logf("custom golangci-lint %s: go mod tidy %s, go build %s", golangciVersion, tidy.Round(time.Second), build.Round(time.Second))
	out := run(t, dir, env, bin, "version")
	t.Logf("%s", bytes.TrimSpace(out))
	return bin
}

type gclIssue struct {
	FromLinter string
	Text       string
	Pos        struct {
		Filename string
		Line     int
	}
}

func runGCL(t *testing.T, gcl, suite, work, cfgPath string) []gclIssue {
	t.Helper()
	// --path-mode=abs: by default (v2) paths are relative to the
	// configuration file, which lives in docs/golangci here.
	cmd := exec.Command(gcl, "run", "--config", cfgPath, "--path-mode=abs", "--output.json.path", "stdout", "--show-stats=false", "./...")
	cmd.Dir = suite
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOLANGCI_LINT_CACHE="+filepath.Join(work, "gcl-cache"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("golangci-lint run: %s", time.Since(start).Round(time.Millisecond))
	// Exit code 1 means issues were found.
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		t.Fatalf("golangci-lint run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var res struct{ Issues []gclIssue }
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("golangci-lint JSON: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	for i := range res.Issues {
		f := &res.Issues[i].Pos.Filename
		if rel, err := filepath.Rel(suite, *f); err == nil && filepath.IsAbs(*f) {
			*f = rel
		}
	}
	return res.Issues
}

// standaloneFindings runs analyzers.All() with the x/tools checker over the
// suite, as `retryvet ./...` does, deduplicated across test variants.
func standaloneFindings(t *testing.T, dir string) []string {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax | packages.NeedModule, Dir: dir, Tests: true}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		t.Fatalf("%d errors loading %s", n, dir)
	}
	graph, err := checker.Analyze(analyzers.All(), pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, act := range graph.Roots {
		if act.Err != nil {
			t.Fatalf("%s: %v", act, act.Err)
		}
		for _, d := range act.Diagnostics {
			p := act.Package.Fset.Position(d.Pos)
			rel, err := filepath.Rel(dir, p.Filename)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, finding(act.Analyzer.Name, rel, p.Line, d.Message))
		}
	}
	return dedup(out)
}

func finding(analyzer, file string, line int, msg string) string {
	return fmt.Sprintf("%s:%d: [%s] %s", filepath.ToSlash(file), line, analyzer, msg)
}

func dedup(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

// compare checks that golangci-lint reported the standalone findings, each
// under its analyzer, and that every analyzer reported something.
func compare(t *testing.T, got, want []string) {
	t.Helper()
	got = dedup(got)
	if !slices.Equal(got, want) {
		t.Errorf("golangci-lint findings differ from the standalone driver\ngot:\n  %s\nwant:\n  %s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for _, a := range analyzers.All() {
		tag := "[" + a.Name + "]"
		if !slices.ContainsFunc(got, func(f string) bool { return strings.Contains(f, tag) }) {
			t.Errorf("no golangci-lint finding of analyzer %s on testdata/suite", a.Name)
		}
	}
	t.Logf("%d findings", len(got))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}
