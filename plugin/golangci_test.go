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

	"github.com/retryvet/retryvet/analyzers"
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
// findings the standalone command and go vet -vettool report. It does the
// same on ../cmd/retryvet/testdata/variants, whose tests assign production
// state: all three drivers report the test variant's view, once. It
// downloads and compiles golangci-lint (about 20 s with warm caches,
// minutes cold), so it runs only with RETRYVET_GOLANGCI=1 (.ci/run sets it).
func TestGolangciLint(t *testing.T) {
	if os.Getenv("RETRYVET_GOLANGCI") != "1" {
		t.Skip("set RETRYVET_GOLANGCI=1 to build a custom golangci-lint (slow; .ci/run does)")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(repo, "cmd", "retryvet", "testdata", "suite")
	variants := filepath.Join(repo, "cmd", "retryvet", "testdata", "variants")
	testmod.Download(t, suite)

	work := t.TempDir()
	gcl := buildCustomGCL(t, repo, work)
	retryvet := filepath.Join(work, "retryvet")
	run(t, filepath.Join(repo, "cmd", "retryvet"), append(os.Environ(), "GOWORK=off"), "go", "build", "-o", retryvet, ".")

	// The documented configurations set p99: 30s; the standalone run and
	// go vet get the same default p99 from -p99=30s.
	want := standaloneFindings(t, retryvet, suite)
	if len(analyzers.All()) > 0 && len(want) == 0 {
		t.Fatal("the standalone driver finds nothing on testdata/suite")
	}
	if viaVet := vetFindings(t, retryvet, suite); !slices.Equal(viaVet, want) {
		t.Errorf("go vet -vettool and the standalone command differ on testdata/suite\nvet:\n  %s\nstandalone:\n  %s",
			strings.Join(viaVet, "\n  "), strings.Join(want, "\n  "))
	}

	// The documented configurations, as users copy them.
	docs := filepath.Join(repo, "docs", "golangci")
	checkCustomGCL(t, filepath.Join(docs, ".custom-gcl.yml"))

	t.Run("suite", func(t *testing.T) {
		compare(t, suiteIssues(t, runGCL(t, gcl, suite, work, filepath.Join(docs, ".golangci.yml"))), want, true)
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
		compare(t, got, want, true)
	})

	// One answer per package: standalone, vet and golangci-lint agree on a
	// module whose tests change what production code means.
	t.Run("variants", func(t *testing.T) {
		want := standaloneFindings(t, retryvet, variants)
		if len(want) == 0 {
			t.Fatal("the standalone driver finds nothing on testdata/variants")
		}
		if viaVet := vetFindings(t, retryvet, variants); !slices.Equal(viaVet, want) {
			t.Errorf("go vet -vettool and the standalone command differ on testdata/variants\nvet:\n  %s\nstandalone:\n  %s",
				strings.Join(viaVet, "\n  "), strings.Join(want, "\n  "))
		}
		compare(t, suiteIssues(t, runGCL(t, gcl, variants, work, filepath.Join(docs, ".golangci.yml"))), want, false)
	})

	// A malformed values file stops golangci-lint with its file and line,
	// as it stops the standalone command and go vet.
	t.Run("malformed values", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "go.mod"), "module example.com/vals\n\ngo 1.26\n")
		if err := os.Mkdir(filepath.Join(dir, "p"), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "p", "p.go"), "package p\n\n// Get is exported: no standard linter reports it, only the values file can fail the run.\nfunc Get() {}\n")
		write(t, filepath.Join(dir, ".retryvet.yml"), "p99:\n  example.com/vals/p.get: 40\n")
		cmd := exec.Command(gcl, "run", "--config", filepath.Join(docs, ".golangci.yml"), "--show-stats=false", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOLANGCI_LINT_CACHE="+filepath.Join(work, "gcl-cache"))
		out, err := cmd.CombinedOutput()
		const want = `.retryvet.yml:2: p99 of example.com/vals/p.get: "40" is not a duration`
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("golangci-lint on a malformed values file: %v, want a failure naming %q\n%s", err, want, out)
		}
	})
}

// suiteIssues are the findings of the suite linter ("ANALYZER: message").
func suiteIssues(t *testing.T, issues []gclIssue) []string {
	t.Helper()
	var got []string
	for _, is := range issues {
		if is.FromLinter != Name {
			if slices.Contains(Names, is.FromLinter) {
				t.Errorf("issue from linter %q, want %q: %s", is.FromLinter, Name, is.Text)
			}
			continue // a standard linter on the testdata
		}
		analyzer, msg, ok := strings.Cut(is.Text, ": ")
		if !ok {
			t.Errorf("issue text %q does not start with an analyzer name", is.Text)
			continue
		}
		got = append(got, finding(analyzer, is.Pos.Filename, is.Pos.Line, msg))
	}
	return got
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

// standaloneFindings runs `retryvet -json -p99=30s ./...` in dir.
func standaloneFindings(t *testing.T, retryvet, dir string) []string {
	t.Helper()
	cmd := exec.Command(retryvet, "-json", "-p99=30s", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("retryvet -json ./...: %v\n%s", err, stderr.String())
	}
	return jsonFindings(t, dir, stdout.Bytes())
}

// vetFindings runs `go vet -vettool=retryvet -json -p99=30s ./...` in dir.
func vetFindings(t *testing.T, retryvet, dir string) []string {
	t.Helper()
	cmd := exec.Command("go", "vet", "-vettool="+retryvet, "-json", "-p99=30s", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go vet -vettool -json ./...: %v\n%s", err, stderr.String())
	}
	return jsonFindings(t, dir, stdout.Bytes())
}

// jsonFindings flattens a stream of x/tools JSON trees into findings with
// paths relative to dir.
func jsonFindings(t *testing.T, dir string, data []byte) []string {
	t.Helper()
	var out []string
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("JSON: %v\n%s", err, data)
		}
		for pkg, byAnalyzer := range tree {
			for analyzer, raw := range byAnalyzer {
				var diags []struct{ Posn, Message string }
				if err := json.Unmarshal(raw, &diags); err != nil {
					t.Fatalf("%s: %s: %s", pkg, analyzer, raw)
				}
				for _, d := range diags {
					file, line := d.Posn, 0
					// file:line:col
					if i := strings.LastIndexByte(file, ':'); i > 0 {
						file = file[:i]
						if j := strings.LastIndexByte(file, ':'); j > 0 {
							fmt.Sscan(file[j+1:], &line)
							file = file[:j]
						}
					}
					if rel, err := filepath.Rel(dir, file); err == nil {
						file = rel
					}
					out = append(out, finding(analyzer, file, line, d.Message))
				}
			}
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
// under its analyzer, and (with all) that every analyzer reported something.
func compare(t *testing.T, got, want []string, all bool) {
	t.Helper()
	got = dedup(got)
	if !slices.Equal(got, want) {
		t.Errorf("golangci-lint findings differ from the standalone driver\ngot:\n  %s\nwant:\n  %s",
			strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for _, a := range analyzers.All() {
		tag := "[" + a.Name + "]"
		if all && !slices.ContainsFunc(got, func(f string) bool { return strings.Contains(f, tag) }) {
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
