package deadlinecensus

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmpFiles lists the temporary files writeAtomic leaves in dir.
func tmpFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestWriteAtomicFailure: -update that cannot replace the baseline (here
// the name is a directory) fails and leaves no temporary file.
func TestWriteAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "census.baseline")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(target, []byte("data\n")); err == nil {
		t.Fatal("writeAtomic onto a non-empty directory succeeded")
	}
	if left := tmpFiles(t, dir); len(left) != 0 {
		t.Errorf("temporary files left after a failed write: %v", left)
	}
}

// TestWriteAtomicSignal: -update interrupted (SIGTERM) while its temporary
// file exists removes it and exits 2; the old baseline is untouched.
func TestWriteAtomicSignal(t *testing.T) {
	if dir := os.Getenv("RETRYVET_WRITEATOMIC_CHILD"); dir != "" {
		beforeRename = func(tmp string) {
			os.WriteFile(filepath.Join(dir, "ready"), []byte(tmp), 0o644)
			time.Sleep(time.Minute) // the parent kills the process here
		}
		writeAtomic(filepath.Join(dir, "census.baseline"), []byte("new\n"))
		t.Fatal("not interrupted")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "census.baseline")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteAtomicSignal$")
	cmd.Env = append(os.Environ(), "RETRYVET_WRITEATOMIC_CHILD="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child never reached the rename")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if left := tmpFiles(t, dir); len(left) != 1 {
		t.Fatalf("before the signal: temporary files %v, want one", left)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitUsage {
		t.Errorf("interrupted -update: exit %d (%v), want %d", code, err, exitUsage)
	}
	if left := tmpFiles(t, dir); len(left) != 0 {
		t.Errorf("temporary files left after SIGTERM: %v", left)
	}
	if b, _ := os.ReadFile(target); string(b) != "old\n" {
		t.Errorf("the baseline changed: %q", b)
	}
}
