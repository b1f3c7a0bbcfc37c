package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/retryvet/retryvet/analyzers"
)

// run runs the retryvet binary in dir and returns its exit code, stdout
// and stderr.
func run(t *testing.T, dir string, env []string, args ...string) (int, []byte, []byte) {
	t.Helper()
	cmd := exec.Command(buildRetryvet(t), args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := exitCode(err)
	if code < 0 {
		t.Fatalf("retryvet %s: %v", strings.Join(args, " "), err)
	}
	return code, stdout.Bytes(), stderr.Bytes()
}

func variantsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "variants"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOneAnswerPerPackage: a package whose internal test assigns the
// production variable its retry waits on (testdata/variants/store). The
// standalone command reports go vet's answer, the test variant's view,
// once per package, keyed by package path; the external test package's
// finding is reported once, under its own path.
func TestOneAnswerPerPackage(t *testing.T) {
	dir := variantsDir(t)
	code, stdout, stderr := run(t, dir, nil, "-json", "./...")
	if code != 0 {
		t.Fatalf("retryvet -json ./...: exit %d\n%s", code, stderr)
	}
	var tree jsonTree
	if err := json.Unmarshal(stdout, &tree); err != nil {
		t.Fatalf("-json output is not one JSON tree: %v\n%s", err, stdout)
	}
	for pkg := range tree {
		if strings.Contains(pkg, "[") {
			t.Errorf("package key %q: want a package path", pkg)
		}
	}
	alone := findingsOf(t, dir, []jsonTree{tree})

	vet := exec.Command("go", "vet", "-vettool="+buildRetryvet(t), "-json", "./...")
	vet.Dir, vet.Env = dir, append(os.Environ(), "GOWORK=off")
	var vout, verr bytes.Buffer
	vet.Stdout, vet.Stderr = &vout, &verr
	if err := vet.Run(); err != nil {
		t.Fatalf("go vet -vettool: %v\n%s", err, verr.String())
	}
	viaVet := findingsOf(t, dir, decodeTrees(t, append(vout.Bytes(), verr.Bytes()...)))
	if !slices.Equal(alone, viaVet) {
		t.Errorf("standalone and go vet -vettool differ\nstandalone:\n  %s\ngo vet:\n  %s",
			strings.Join(alone, "\n  "), strings.Join(viaVet, "\n  "))
	}

	var atWait []string
	for _, f := range alone {
		if strings.HasPrefix(f, "store/store.go:27:3: [retrytimeout]") {
			atWait = append(atWait, f)
		}
	}
	// One finding, and the test's assignment to retryWait changes nothing
	// in it: the wait is judged at its production value (2s), so the
	// test variant's view is the package's own.
	if len(atWait) != 1 {
		t.Errorf("%d findings at the wait in store/store.go, want 1:\n  %s", len(atWait), strings.Join(atWait, "\n  "))
	} else if !strings.Contains(atWait[0], "waits 2s") {
		t.Errorf("the finding at the wait does not fold retryWait to its production 2s (the test's assignment changed a verdict on production code)\n  %s", atWait[0])
	}
	if got := tree["example.com/variants/store_test"]["retrystatus"]; len(got) == 0 {
		t.Errorf("no retrystatus finding under example.com/variants/store_test (the external test package):\n%s", stdout)
	}

	// Text: the same findings, once each, exit 3.
	code, _, text := run(t, dir, nil, "./...")
	if code != 3 {
		t.Errorf("retryvet ./...: exit %d, want 3\n%s", code, text)
	}
	if n, want := countFindingLines(text), len(alone); n != want {
		t.Errorf("text mode printed %d findings, -json %d\n%s", n, want, text)
	}

	// -test=false: the package alone (the wait folds to 2s), no test files.
	code, stdout, stderr = run(t, dir, nil, "-json", "-test=false", "./...")
	if code != 0 {
		t.Fatalf("retryvet -json -test=false ./...: exit %d\n%s", code, stderr)
	}
	noTests := findingsOf(t, dir, decodeTrees(t, stdout))
	if slices.ContainsFunc(noTests, func(f string) bool { return strings.Contains(f, "_test.go") }) {
		t.Errorf("-test=false reported findings in test files:\n  %s", strings.Join(noTests, "\n  "))
	}
	if !slices.ContainsFunc(noTests, func(f string) bool {
		return strings.HasPrefix(f, "store/store.go:27:3: [retrytimeout]") && strings.Contains(f, "waits 2s")
	}) {
		t.Errorf("-test=false: no finding at the wait that folds retryWait to 2s:\n  %s", strings.Join(noTests, "\n  "))
	}
}

// countFindingLines counts the findings of text output: lines
// "file:line:col: message" whose message does not start with a tab (a
// related position).
func countFindingLines(text []byte) int {
	n := 0
	for _, line := range strings.Split(string(text), "\n") {
		if _, msg, ok := strings.Cut(line, ".go:"); ok && !strings.Contains(msg, ": \t") {
			n++
		}
	}
	return n
}

// TestDegrade: one package imports a module the go command cannot look up
// (GOPROXY=off), one does not type-check, one embeds files that are not
// there, one is fine. The standalone
// command names both failures, still reports the fine package's findings,
// and exits 1.
func TestDegrade(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/degrade\n\ngo 1.26\n\nrequire example.invalid/gone v1.0.0\n")
	write("bad/bad.go", "package bad\n\nimport \"example.invalid/gone\"\n\nvar X = gone.Y\n")
	write("broken/broken.go", "package broken\n\nvar X int = \"not an int\"\n")
	// A //go:embed pattern that matches nothing (a web UI not built yet).
	write("ui/ui.go", "package ui\n\nimport \"embed\"\n\n//go:embed dist\nvar FS embed.FS\n")
	write("ok/ok.go", `package ok

import (
	"net/http"
	"time"
)

func Get(url string) (*http.Response, error) {
	var err error
	for i := 0; i < 3; i++ {
		var resp *http.Response
		if resp, err = http.Get(url); err == nil {
			return resp, nil
		}
		time.Sleep(time.Second)
	}
	return nil, err
}
`)
	for _, env := range [][]string{
		{"GOPROXY=off", "GOFLAGS=-mod=mod"},
		{"GOPROXY=off", "GOFLAGS=-mod=readonly"},
	} {
		for _, format := range []string{"text", "json", "sarif"} {
			code, stdout, stderr := run(t, dir, env, "-format", format, "./...")
			if code != 1 {
				t.Errorf("%v -format %s: exit %d, want 1", env, format, code)
			}
			for _, want := range []string{"example.com/degrade/bad", "example.com/degrade/broken", "not an int", "example.com/degrade/ui", "pattern dist"} {
				if !bytes.Contains(stderr, []byte(want)) {
					t.Errorf("%v -format %s: stderr does not name %q:\n%s", env, format, want, stderr)
				}
			}
			out := string(stdout) + string(stderr)
			at := "ok/ok.go:15:3"
			if format == "sarif" {
				at = `"uri": "ok/ok.go"`
			}
			if !strings.Contains(out, at) || !strings.Contains(out, "no jitter") {
				t.Errorf("%v -format %s: the findings of the package that builds are missing:\n%s", env, format, out)
			}
			if format == "sarif" {
				validate(t, stdout)
			}
		}
	}
}

func TestHelp(t *testing.T) {
	all := analyzers.All()
	var out, errs bytes.Buffer
	if code := help(all, nil, &out, &errs); code != 0 {
		t.Fatalf("help: exit %d", code)
	}
	for _, want := range []string{"retryvet census", "-format text|json|sarif", "-p99", "-fix", "//retryvet:ignore", "//retryvet:p99", "//retryvet:pipeline", "Exit codes", "help census"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help does not mention %q", want)
		}
	}
	for _, a := range all {
		if !strings.Contains(out.String(), "\t"+a.Name) {
			t.Errorf("help does not list analyzer %s", a.Name)
		}
	}
	for _, boilerplate := range []string{"Printf", "SplitSeq", "go fix"} {
		if strings.Contains(out.String(), boilerplate) {
			t.Errorf("help contains the x/tools boilerplate %q", boilerplate)
		}
	}

	out.Reset()
	if code := help(all, []string{"census"}, &out, &errs); code != 0 || !strings.Contains(out.String(), "usage: retryvet census") || !strings.Contains(out.String(), "-baseline") {
		t.Errorf("help census: exit %d, want the census usage with its flags:\n%s", code, out.String())
	}
	out.Reset()
	if code := help(all, []string{all[0].Name}, &out, &errs); code != 0 || !strings.HasPrefix(out.String(), all[0].Name+": ") {
		t.Errorf("help %s: exit %d\n%s", all[0].Name, code, out.String())
	}
	if code := help(all, []string{"nosuch"}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "nosuch") {
		t.Errorf("help nosuch: exit %d, stderr %q", code, errs.String())
	}
}

func TestParse(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	registerToolFlags(fs)
	d := &driver{analyzers: analyzers.All(), flags: fs}
	name := analyzers.All()[0].Name
	for _, tc := range []struct {
		args               []string
		format             string
		build, tool, pkgs  []string
		fix, diff, noTests bool
		bad                bool
	}{
		{args: []string{"./..."}, format: "text", pkgs: []string{"./..."}},
		{args: []string{"-format", "sarif", "./..."}, format: "sarif", pkgs: []string{"./..."}},
		{args: []string{"--format=json", "./a", "./b"}, format: "json", pkgs: []string{"./a", "./b"}},
		{args: []string{"-json", "-" + name + "=false", "./a"}, format: "json", tool: []string{"-" + name + "=false"}, pkgs: []string{"./a"}},
		{args: []string{"-p99", "30s", "-tags", "integration", "./a"}, format: "text", tool: []string{"-p99=30s"}, build: []string{"-tags", "integration"}, pkgs: []string{"./a"}},
		{args: []string{"-test=false", "-mod=mod", "./a"}, format: "text", tool: []string{"-test=false"}, build: []string{"-mod=mod"}, pkgs: []string{"./a"}, noTests: true},
		{args: []string{"-tags=x", "-C", "sub", "./a"}, format: "text", build: []string{"-C", "sub", "-tags=x"}, pkgs: []string{"./a"}},
		{args: []string{"-fix", "-diff", "./a"}, format: "text", fix: true, diff: true, pkgs: []string{"./a"}},
		{args: []string{"--", "-weird"}, format: "text", pkgs: []string{"-weird"}},
		{args: []string{"-format"}, bad: true},
		{args: []string{"-format=xml", "./..."}, bad: true},
		{args: []string{"-diff", "./..."}, bad: true},
	} {
		o, err := d.parse(tc.args)
		if (err != nil) != tc.bad {
			t.Errorf("parse(%q): error %v, want error %v", tc.args, err, tc.bad)
			continue
		}
		if tc.bad {
			continue
		}
		got := []any{o.format, o.buildArgs, o.toolArgs, o.patterns, o.fix, o.diff, !o.tests}
		want := []any{tc.format, tc.build, tc.tool, tc.pkgs, tc.fix, tc.diff, tc.noTests}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parse(%q) = %q, want %q", tc.args, got, want)
		}
	}
}

func TestIsVetProtocol(t *testing.T) {
	for args, want := range map[string]bool{
		"-V=full":                    true,
		"-flags":                     true,
		"-p99=30s /tmp/b001/vet.cfg": true,
		"./...":                      false,
		"-json ./...":                false,
		"":                           false,
	} {
		if got := isVetProtocol(strings.Fields(args)); got != want {
			t.Errorf("isVetProtocol(%q) = %v, want %v", args, got, want)
		}
	}
}
