package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGoTool checks the Go 1.24+ tool directive: in a copy of the suite
// module, `go get -tool github.com/retryvet/retryvet/cmd/retryvet` (with a
// replace pointing at this checkout, since the module under test is not on
// the proxy) adds a tool line, and `go tool retryvet` reports what the
// binary built here reports. GOPROXY=off: every module needed is in the
// module cache already (this test's own build and testmod.Download put
// them there), and the proxy refuses unpublished module paths (403) where
// `go get` probes github.com/retryvet/retryvet/cmd/retryvet as a module.
// Guarded by RETRYVET_GOTOOL=1 (.ci/run sets it): it compiles retryvet
// twice more.
func TestGoTool(t *testing.T) {
	if os.Getenv("RETRYVET_GOTOOL") != "1" {
		t.Skip("set RETRYVET_GOTOOL=1 to test go get -tool / go tool retryvet (.ci/run does)")
	}
	suite := suiteDir(t)
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "usetool")
	if err := os.CopyFS(dir, os.DirFS(suite)); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=mod")
	goCmd := func(args ...string) ([]byte, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil && exitCode(err) != 3 {
			t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.Bytes(), err
	}
	goCmd("mod", "edit", "-replace=github.com/retryvet/retryvet="+repo)
	// retryvet's own go.sum holds the hashes of everything it needs; with
	// them the go command has no reason to ask the checksum database, which
	// a fresh machine without a warm module cache cannot reach.
	if err := appendFile(filepath.Join(dir, "go.sum"), filepath.Join(repo, "go.sum")); err != nil {
		t.Fatal(err)
	}
	goCmd("get", "-tool", "github.com/retryvet/retryvet/cmd/retryvet")
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(mod), "\n"), "tool github.com/retryvet/retryvet/cmd/retryvet") {
		t.Fatalf("go get -tool added no tool directive:\n%s", mod)
	}

	out, _ := goCmd("tool", "retryvet", "-json", "./...")
	viaTool := findingsOf(t, dir, decodeTrees(t, out))

	bin := buildRetryvet(t)
	cmd := exec.Command(bin, "-json", "./...")
	cmd.Dir, cmd.Env = suite, env
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("retryvet -json: %v", err)
	}
	want := findingsOf(t, suite, decodeTrees(t, out))
	if !slices.Equal(viaTool, want) {
		t.Errorf("go tool retryvet differs from retryvet\ngo tool:\n  %s\nretryvet:\n  %s",
			strings.Join(viaTool, "\n  "), strings.Join(want, "\n  "))
	}

	// The text form and its exit code, as a user runs it.
	_, err = goCmd("tool", "retryvet", "./...")
	wantCode := 0
	if len(want) > 0 {
		wantCode = 3
	}
	if code := exitCode(err); code != wantCode {
		t.Errorf("go tool retryvet ./... exit code %d, want %d", code, wantCode)
	}

	// The tool binary as a vet tool: go vet -vettool="$(go tool -n retryvet)".
	path, _ := goCmd("tool", "-n", "retryvet")
	vettool := strings.TrimSpace(string(path))
	if _, err := os.Stat(vettool); err != nil {
		t.Fatalf("go tool -n retryvet = %q: %v", vettool, err)
	}
	vet := exec.Command("go", "vet", "-vettool="+vettool, "-json", "./...")
	vet.Dir, vet.Env = dir, env
	var vout, verr bytes.Buffer
	vet.Stdout, vet.Stderr = &vout, &verr
	if err := vet.Run(); err != nil {
		t.Fatalf("go vet -vettool=$(go tool -n retryvet): %v\n%s", err, verr.String())
	}
	if viaVet := findingsOf(t, dir, decodeTrees(t, append(vout.Bytes(), verr.Bytes()...))); !slices.Equal(viaVet, want) {
		t.Errorf("go vet -vettool=$(go tool -n retryvet) differs from retryvet\nvet:\n  %s\nretryvet:\n  %s",
			strings.Join(viaVet, "\n  "), strings.Join(want, "\n  "))
	}
	t.Logf("go tool retryvet: %d findings", len(viaTool))
}

// appendFile appends the content of src to dst, creating dst if needed.
func appendFile(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
