package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeModule writes files (name -> text) under a new temporary directory
// and returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// p99Module is a retry whose attempts get 2s each; the p99 of the call
// comes from the values file only.
func p99Module(t *testing.T, values string) string {
	t.Helper()
	src, err := os.ReadFile("testdata/suite/p99default/p99default.go")
	if err != nil {
		t.Fatal(err)
	}
	return writeModule(t, map[string]string{
		"go.mod":        "module example.com/vals\n\ngo 1.26\n",
		"p/p.go":        strings.Replace(string(src), "package p99default", "package p", 1),
		".retryvet.yml": values,
	})
}

func goVet(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"vet", "-vettool=" + buildRetryvet(t)}, args...)...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	code := exitCode(err)
	if code < 0 {
		t.Fatalf("go vet: %v", err)
	}
	return code, string(out)
}

const (
	belowP99  = "per-attempt timeout below p99"
	badValues = "p99:\n  example.com/vals/p.get: 40\n"
	wantErr   = `.retryvet.yml:2: p99 of example.com/vals/p.get: "40" is not a duration`
)

// TestValuesFileErrors: a values file whose value has no unit. The
// standalone command names its file and line and exits 2 before any
// analysis; go vet -vettool stops with the same line (the -V=full
// handshake); neither prints "failed prerequisites" nor old findings.
func TestValuesFileErrors(t *testing.T) {
	dir := p99Module(t, "p99:\n  example.com/vals/p.get: 5s\n")
	// Warm the caches with a valid file first: a cached run must not
	// answer once the file is broken.
	if code, _, stderr := run(t, dir, nil, "./..."); code != 3 || !bytes.Contains(stderr, []byte(belowP99)) {
		t.Fatalf("valid values file: exit %d, want 3 with %q\n%s", code, belowP99, stderr)
	}
	if code, out := goVet(t, dir, "./..."); code == 0 || !strings.Contains(out, belowP99) {
		t.Fatalf("go vet, valid values file: exit %d, want the finding\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, ".retryvet.yml"), []byte(badValues), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "sarif"} {
		code, stdout, stderr := run(t, dir, nil, "-format", format, "./...")
		if code != 2 || !bytes.Contains(stderr, []byte(wantErr)) {
			t.Errorf("-format %s, malformed values file: exit %d, want 2 and %q\n%s", format, code, wantErr, stderr)
		}
		if out := string(stdout) + string(stderr); strings.Contains(out, "failed prerequisites") || strings.Contains(out, belowP99) {
			t.Errorf("-format %s: the error is not the only output:\n%s", format, out)
		}
	}
	code, out := goVet(t, dir, "./...")
	if code == 0 || !strings.Contains(out, wantErr) || strings.Contains(out, "failed prerequisites") || strings.Contains(out, belowP99) {
		t.Errorf("go vet -vettool, malformed values file: exit %d, want an error naming %q and nothing else\n%s", code, wantErr, out)
	}
	// -values FILE names its own file.
	other := filepath.Join(dir, "other.yml")
	if err := os.WriteFile(other, []byte("p99:\n  x: forty\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, dir, nil, "-values", "other.yml", "./..."); code != 2 || !bytes.Contains(stderr, []byte(`other.yml:2: p99 of x: "forty" is not a duration`)) {
		t.Errorf("-values other.yml: exit %d\n%s", code, stderr)
	}
}

// TestValuesFileKeysCache: go vet's cache sees an edit of the values file
// (under the standalone command and under go vet -vettool).
func TestValuesFileKeysCache(t *testing.T) {
	dir := p99Module(t, "p99:\n  example.com/vals/p.get: 5s\n")
	if code, _, stderr := run(t, dir, nil, "./..."); code != 3 || !bytes.Contains(stderr, []byte(belowP99)) {
		t.Fatalf("p99 5s: exit %d, want the finding\n%s", code, stderr)
	}
	if code, out := goVet(t, dir, "./..."); code == 0 || !strings.Contains(out, belowP99) {
		t.Fatalf("go vet, p99 5s: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, ".retryvet.yml"), []byte("p99:\n  example.com/vals/p.get: 1s\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, dir, nil, "./..."); code != 0 {
		t.Errorf("p99 1s: exit %d, want 0 (a cached answer of the old file?)\n%s", code, stderr)
	}
	if code, out := goVet(t, dir, "./..."); code != 0 {
		t.Errorf("go vet, p99 1s: exit %d, want 0 (a cached answer of the old file?)\n%s", code, out)
	}
}

// TestUsage: a flag nobody knows, and no packages, are usage errors
// (exit 2) with retryvet's usage, not the go command's.
func TestUsage(t *testing.T) {
	dir := variantsDir(t)
	for _, args := range [][]string{{"-badflag", "./..."}, {}, {"-format=xml", "./..."}} {
		code, _, stderr := run(t, dir, nil, args...)
		if code != 2 || !bytes.Contains(stderr, []byte("usage: retryvet")) || bytes.Contains(stderr, []byte("go list")) {
			t.Errorf("retryvet %s: exit %d, want 2 with retryvet's usage\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	if code, _, stderr := run(t, dir, nil, "-badflag", "./..."); !bytes.Contains(stderr, []byte("-badflag")) {
		t.Errorf("-badflag: exit %d, the message does not name the flag\n%s", code, stderr)
	}
}

// TestVersion: -V=full names the module version (not x/tools'
// "comments-go-here") in a line the go command accepts.
func TestVersion(t *testing.T) {
	_, stdout, _ := run(t, t.TempDir(), nil, "-V=full")
	f := strings.Fields(string(stdout))
	if len(f) < 4 || f[0] != "retryvet" || f[1] != "version" || !strings.HasPrefix(f[len(f)-1], "buildID=") || strings.Contains(string(stdout), "comments-go-here") {
		t.Errorf("-V=full: %q", stdout)
	}
}

// TestFixUnfixable: -fix on code whose findings have no fix prints them
// and exits 3, so a CI step with -fix does not pass.
func TestFixUnfixable(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/fix\n\ngo 1.26\n",
		"ok/ok.go": `package ok

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
`,
	})
	for _, args := range [][]string{{"-fix", "./..."}, {"-fix", "-diff", "./..."}} {
		code, _, stderr := run(t, dir, nil, args...)
		if code != 3 || countFindingLines(stderr) != 1 || !bytes.Contains(stderr, []byte("ok/ok.go:15:3: no jitter")) {
			t.Errorf("retryvet %s: exit %d, want 3 and the finding\n%s", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestTextConventions: each finding's line ends with its analyzer's
// name, and positions are relative to the working directory, as go vet
// prints them.
func TestTextConventions(t *testing.T) {
	dir := variantsDir(t)
	_, _, stderr := run(t, dir, nil, "./...")
	n := 0
	for _, line := range strings.Split(string(stderr), "\n") {
		if !strings.Contains(line, ".go:") || strings.Contains(line, ": \t") {
			continue
		}
		n++
		if filepath.IsAbs(line) {
			t.Errorf("absolute position: %s", line)
		}
		i := strings.LastIndex(line, " (")
		if i < 0 || !strings.HasSuffix(line, ")") {
			t.Errorf("no analyzer name at the end: %s", line)
			continue
		}
		name := strings.TrimSuffix(line[i+2:], ")")
		if !bytes.Contains([]byte(" deadlinecensus doubleretry retrytimeout retrystatus expiredctx "), []byte(" "+name+" ")) {
			t.Errorf("line ends with %q, not an analyzer name: %s", name, line)
		}
	}
	if n == 0 {
		t.Fatalf("no findings:\n%s", stderr)
	}
}
