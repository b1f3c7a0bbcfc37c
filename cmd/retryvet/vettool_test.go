package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/analyzers"
)

// buildRetryvet builds this command once per test binary (into a
// directory TestMain removes) and returns the binary's path.
func buildRetryvet(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "retryvet-test-")
		if err != nil {
			binErr = err
			return
		}
		binDir = dir
		bin := filepath.Join(dir, "retryvet")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		binPath = bin
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(sandboxEnv); dir != "" {
		sandboxedVetTool(dir) // hermetic_test.go
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// jsonTree is the x/tools -json output: package path, analyzer, findings
// (or an error object in place of the findings).
type jsonTree map[string]map[string]json.RawMessage

type jsonDiag struct {
	Posn    string `json:"posn"`
	Message string `json:"message"`
}

// findingsOf flattens JSON trees into sorted, deduplicated
// "file:line:col: [analyzer] message" lines with files relative to dir.
// Packages and their test variants report the same finding; it counts once.
func findingsOf(t *testing.T, dir string, trees []jsonTree) []string {
	t.Helper()
	var out []string
	for _, tree := range trees {
		for pkg, byAnalyzer := range tree {
			for analyzer, raw := range byAnalyzer {
				var diags []jsonDiag
				if err := json.Unmarshal(raw, &diags); err != nil {
					t.Errorf("%s: %s: %s", pkg, analyzer, raw) // {"error": ...}
					continue
				}
				for _, d := range diags {
					posn := d.Posn
					if rel, err := filepath.Rel(dir, posn); err == nil && !strings.HasPrefix(rel, "..") {
						posn = rel
					}
					out = append(out, fmt.Sprintf("%s: [%s] %s", filepath.ToSlash(posn), analyzer, d.Message))
				}
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// decodeTrees reads a stream of JSON trees, skipping the "# package" lines
// go vet writes before each.
func decodeTrees(t *testing.T, data []byte) []jsonTree {
	t.Helper()
	var js bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		js.Write(sc.Bytes())
		js.WriteByte('\n')
	}
	var trees []jsonTree
	dec := json.NewDecoder(&js)
	for dec.More() {
		var tree jsonTree
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("decoding JSON: %v\n%s", err, data)
		}
		trees = append(trees, tree)
	}
	return trees
}

// TestVettool runs the suite standalone and through go vet -vettool on the
// same testdata and checks that both report the same findings (issue 2,
// §4), among them one of every analyzer in analyzers.All().
func TestVettool(t *testing.T) {
	dir := suiteDir(t)
	bin := buildRetryvet(t)
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")

	// Standalone (go vet underneath, rendered as one x/tools tree): the
	// JSON tree on stdout, exit 0 with -json.
	// -p99=30s: the default p99, which go vet must pass on to the tool.
	standalone := exec.Command(bin, "-json", "-p99=30s", "./...")
	standalone.Dir, standalone.Env = dir, env
	var sout, serr bytes.Buffer
	standalone.Stdout, standalone.Stderr = &sout, &serr
	if err := standalone.Run(); err != nil {
		t.Fatalf("retryvet -json ./...: %v\n%s", err, serr.String())
	}
	alone := findingsOf(t, dir, decodeTrees(t, sout.Bytes()))

	// go vet -vettool (unitchecker, facts through vet's files): the JSON
	// trees on stderr, one per package after a "# pkg" line.
	vet := exec.Command("go", "vet", "-vettool="+bin, "-json", "-p99=30s", "./...")
	vet.Dir, vet.Env = dir, env
	var vout, verr bytes.Buffer
	vet.Stdout, vet.Stderr = &vout, &verr
	if err := vet.Run(); err != nil {
		t.Fatalf("go vet -vettool: %v\n%s%s", err, vout.String(), verr.String())
	}
	viaVet := findingsOf(t, dir, decodeTrees(t, append(vout.Bytes(), verr.Bytes()...)))

	if !slices.Equal(alone, viaVet) {
		t.Errorf("standalone and go vet -vettool differ\nstandalone:\n  %s\ngo vet:\n  %s",
			strings.Join(alone, "\n  "), strings.Join(viaVet, "\n  "))
	}
	for _, a := range analyzers.All() {
		tag := "[" + a.Name + "]"
		if !slices.ContainsFunc(alone, func(f string) bool { return strings.Contains(f, tag) }) {
			t.Errorf("no finding of analyzer %s on testdata/suite", a.Name)
		}
	}
	// Findings that need facts from another package of the suite.
	for _, a := range analyzers.All() {
		if a.Name != "deadlinecensus" && a.Name != "doubleretry" {
			continue
		}
		tag := "[" + a.Name + "]"
		if !slices.ContainsFunc(alone, func(f string) bool { return strings.HasPrefix(f, "crosspkg/") && strings.Contains(f, tag) }) {
			t.Errorf("no cross-package finding of %s in testdata/suite/crosspkg", a.Name)
		}
	}
	// The default p99 reached the analyzers (p99default declares none).
	if slices.ContainsFunc(analyzers.All(), func(a *analysis.Analyzer) bool { return a.Name == "retrytimeout" }) &&
		!slices.ContainsFunc(alone, func(f string) bool { return strings.HasPrefix(f, "p99default/") && strings.Contains(f, "30s") }) {
		t.Errorf("-p99=30s: no finding in testdata/suite/p99default that uses it")
	}
	for _, f := range alone {
		if strings.HasPrefix(f, "clean/") || strings.HasPrefix(f, "quiet/") {
			t.Errorf("finding in the clean package: %s", f)
		}
	}
	t.Logf("%d findings:\n  %s", len(alone), strings.Join(alone, "\n  "))

	// Text mode, through -format text: exit 3 with findings, 0 without.
	text := exec.Command(bin, "-format", "text", "-p99=30s", "./...")
	text.Dir, text.Env = dir, env
	err := text.Run()
	wantCode := 0
	if len(alone) > 0 {
		wantCode = 3
	}
	if code := exitCode(err); code != wantCode {
		t.Errorf("retryvet -format text ./... exit code %d, want %d", code, wantCode)
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// TestSideEffectsFlag: -sideeffects turns on doubleretry's opt-in
// repeated-write check, standalone and through go vet (which learns the
// flag from -flags and passes it on); without it doubleretry is quiet
// there.
func TestSideEffectsFlag(t *testing.T) {
	dir := suiteDir(t)
	bin := buildRetryvet(t)
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	run := func(args ...string) []string {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		var fs []string
		for _, f := range findingsOf(t, dir, decodeTrees(t, append(out.Bytes(), errb.Bytes()...))) {
			if strings.HasPrefix(f, "sideeffects/") && strings.Contains(f, "[doubleretry]") {
				fs = append(fs, f)
			}
		}
		return fs
	}
	if fs := run(bin, "-json", "./sideeffects"); len(fs) != 0 {
		t.Errorf("default: %d findings, want none (the check is opt-in):\n  %s", len(fs), strings.Join(fs, "\n  "))
	}
	const want = "runs before notify on every attempt of the retry loop"
	alone := run(bin, "-json", "-sideeffects", "./sideeffects")
	viaVet := run("go", "vet", "-vettool="+bin, "-json", "-sideeffects", "./sideeffects")
	if len(alone) != 1 || !strings.Contains(alone[0], want) {
		t.Errorf("-sideeffects: findings\n  %s\nwant one that says %q", strings.Join(alone, "\n  "), want)
	}
	if !slices.Equal(alone, viaVet) {
		t.Errorf("-sideeffects: standalone and go vet -vettool differ\nstandalone:\n  %s\ngo vet:\n  %s",
			strings.Join(alone, "\n  "), strings.Join(viaVet, "\n  "))
	}
}
