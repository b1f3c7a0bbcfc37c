package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/retryvet/retryvet/analyzers"
)

// TestCIScript runs docs/ci/retryvet-ci.sh, the shell part of the GitHub
// Actions example docs/ci/retryvet.yml, on a copy of the suite module with
// retryvet built here on PATH and GITHUB_STEP_SUMMARY pointing at a file:
//
//   - on the whole suite, go vet -vettool reports the findings and fails,
//     the summary gets the markdown census, the report directory the whole
//     census (markdown and HTML), and without a baseline the gate fails,
//     saying how to create one;
//   - with a summary limit below the census's size, the summary holds
//     whole lines below the limit and says where the whole table is;
//   - after census -update, a new entry path to a pipeline fails the gate;
//   - a package with nothing to report and a baseline passes.
//
// Guarded by RETRYVET_CISCRIPT=1 (.ci/run sets it).
func TestCIScript(t *testing.T) {
	if os.Getenv("RETRYVET_CISCRIPT") != "1" {
		t.Skip("set RETRYVET_CISCRIPT=1 to test docs/ci/retryvet-ci.sh (.ci/run does)")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "docs", "ci", "retryvet-ci.sh"))
	if err != nil {
		t.Fatal(err)
	}
	suite := suiteDir(t)
	bin := buildRetryvet(t)
	dir := filepath.Join(t.TempDir(), "mod")
	if err := os.CopyFS(dir, os.DirFS(suite)); err != nil {
		t.Fatal(err)
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := append(os.Environ(),
		"GOWORK=off", "GOFLAGS=-mod=mod",
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_STEP_SUMMARY="+summary,
		"RETRYVET_BASELINE=retryvet.baseline",
	)
	env = slicesDeleteEnv(env, "GITHUB_ACTIONS", "RETRYVET")
	run := func(name string, args ...string) (code int, out string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		err := cmd.Run()
		if err != nil && exitCode(err) < 0 {
			t.Fatalf("%s: %v", name, err)
		}
		return exitCode(err), buf.String()
	}

	// The whole suite, no baseline yet: go vet reports the findings (once
	// there are analyzers), the summary gets the census, and the gate fails
	// saying how to create a baseline.
	code, out := run("bash", script)
	if code != 1 || !strings.Contains(out, "no census baseline retryvet.baseline") || !strings.Contains(out, "-update") {
		t.Errorf("without a baseline: exit %d, want 1 and how to create one\n%s", code, out)
	}
	if vetFails := strings.Contains(out, "go vet -vettool=retryvet reported findings"); vetFails != (len(analyzers.All()) > 0) {
		t.Errorf("go vet failed: %v; want %v (%d analyzers)\n%s", vetFails, len(analyzers.All()) > 0, len(analyzers.All()), out)
	}
	s, _ := os.ReadFile(summary)
	if !strings.Contains(string(s), "## retryvet census") || !strings.Contains(string(s), "census.Complete") || !strings.Contains(string(s), "census.Handle") {
		t.Errorf("the step summary has no census row for census.Handle -> census.Complete:\n%s", s)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "retryvet-report", "census.md"))
	page, _ := os.ReadFile(filepath.Join(dir, "retryvet-report", "census.html"))
	if !strings.Contains(string(s), string(md)) || !strings.Contains(string(md), "census.Handle") {
		t.Errorf("the report's census.md is not what the summary shows:\n%s", md)
	}
	if !strings.HasPrefix(string(page), "<!DOCTYPE html>") || !strings.Contains(string(page), "<code>census.Handle</code>") {
		t.Errorf("the report has no HTML page with the census.Handle row:\n%.500s", page)
	}

	// The summary is capped: whole lines, below the limit, and a line
	// saying where the whole table is.
	os.Remove(summary)
	limit := len(md) / 2
	capped := append(slicesDeleteEnv(env, "RETRYVET_SUMMARY_LIMIT"), "RETRYVET_SUMMARY_LIMIT="+strconv.Itoa(limit))
	cmd := exec.Command("bash", script)
	cmd.Dir, cmd.Env = dir, capped
	cmd.Run()
	s, _ = os.ReadFile(summary)
	table, note, _ := strings.Cut(string(s), "**The census is ")
	if note == "" || !strings.Contains(note, "The whole table is in the artifact `retryvet-report` (census.md, census.html)") {
		t.Errorf("capped summary: no line saying where the whole table is:\n%s", s)
	}
	body := strings.TrimPrefix(table, "## retryvet census\n\n")
	if len(body) > limit+1 || !strings.HasPrefix(string(md), strings.TrimRight(body, "\n")) {
		t.Errorf("capped summary: %d bytes of census for a limit of %d, or not whole lines of it:\n%s", len(body), limit, s)
	}

	// The baseline, as a user creates it.
	if code, out := run(bin, "census", "-baseline", "retryvet.baseline", "-update", "./..."); code != 0 {
		t.Fatalf("retryvet census -baseline retryvet.baseline -update ./...: exit %d\n%s", code, out)
	}

	// A new entry path with a short deadline fails the gate, named.
	newPath := `package census

import (
	"context"
	"time"
)

// Another is a new caller that gives the pipeline 2s.
func Another() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return Complete(ctx)
}
`
	if err := os.WriteFile(filepath.Join(dir, "census", "another.go"), []byte(newPath), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out = run("bash", script, "./...")
	if code != 1 || !strings.Contains(out, "the census baseline gate failed") || !strings.Contains(out, "Another") {
		t.Errorf("new entry path: exit %d, want 1 from the gate naming census.Another\n%s", code, out)
	}

	// A package with nothing to report and its baseline: the script passes.
	if code, out := run(bin, "census", "-baseline", "quiet.baseline", "-update", "./quiet"); code != 0 {
		t.Fatalf("census -update ./quiet: exit %d\n%s", code, out)
	}
	env = append(env, "RETRYVET_BASELINE=quiet.baseline")
	code, out = run("bash", script, "./quiet")
	if code != 0 || !strings.Contains(out, "retryvet-ci: ok") {
		t.Errorf("quiet package with a baseline: exit %d, want 0\n%s", code, out)
	}
}

// slicesDeleteEnv removes the named variables from env.
func slicesDeleteEnv(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// TestCIWorkflow checks that the GitHub Actions example installs this
// command and runs the script TestCIScript tests, with the baseline the
// README names.
func TestCIWorkflow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci", "retryvet.yml"))
	if err != nil {
		t.Fatal(err)
	}
	wf := string(data)
	for _, want := range []string{
		"run: go install github.com/retryvet/retryvet/cmd/retryvet@",
		"run: bash docs/ci/retryvet-ci.sh ./...",
		"RETRYVET_BASELINE: retryvet.baseline",
		"go-version-file: go.mod",
	} {
		if !strings.Contains(wf, want) {
			t.Errorf("docs/ci/retryvet.yml has no %q", want)
		}
	}
	if strings.Contains(wf, "\t") {
		t.Errorf("docs/ci/retryvet.yml contains a tab (YAML indents with spaces)")
	}
}
