// Package testmod prepares module-mode testdata for analysistest.
//
// analysistest loads a testdata directory that has a go.mod with
// GOPROXY=off, so the modules it requires (the real SDKs and retry
// libraries) must already be in the module cache. Download puts them there
// through the normal proxy settings, once per test process and directory, so
// `go test ./...` works on a fresh machine.
package testmod

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	mu   sync.Mutex
	done = map[string]error{}
)

// Download runs `go mod download` in dir (a testdata module) and fails the
// test if the modules cannot be had.
func Download(t testing.TB, dir string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	err, ok := done[abs]
	if !ok {
		cmd := exec.Command("go", "mod", "download")
		cmd.Dir = abs
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, runErr := cmd.CombinedOutput()
		if runErr != nil {
			err = &downloadError{dir: abs, out: string(out), err: runErr}
		}
		done[abs] = err
	}
	if err != nil {
		t.Fatal(err)
	}
}

type downloadError struct {
	dir, out string
	err      error
}

func (e *downloadError) Error() string {
	return "go mod download in " + e.dir + ": " + e.err.Error() + "\n" + e.out
}
