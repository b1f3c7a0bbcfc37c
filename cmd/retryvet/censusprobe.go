package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/retryvet/retryvet/deadlinecensus"
)

// probeFlag runs the vet tool with deadlinecensus.Probe alone: the
// census's first step, which retryvet census runs through go vet so that
// a program with no pipeline costs what go vet costs (probe.go there).
const probeFlag = "census-probe"

// probing reports whether the vet tool's arguments ask for the probe.
func probing(args []string) bool {
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case probeFlag, probeFlag + "=true":
			return true
		}
	}
	return false
}

// censusProbe runs the probe over the packages and every package of their
// main modules (the census counts a module's pipelines wherever they are
// in it), as go vet -vettool=retryvet -census-probe. It answers "no
// pipeline" only when go vet succeeded and the probe reported nothing;
// any error (a package that does not type-check, a malformed values
// file, a go command that fails) leaves it to the full census, which says
// it. A signal stops go vet and its tool processes with the census.
func censusProbe(patterns []string) bool {
	self, err := os.Executable()
	if err != nil {
		return false
	}
	d := &driver{tool: self, stdout: io.Discard, stderr: io.Discard}
	stop := d.handleSignals()
	defer stop()
	var mods bytes.Buffer
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}")
	list.Stdout = &mods
	if err := d.runCmd(list); err != nil {
		return false
	}
	args := []string{"vet", "-vettool=" + self, "-" + probeFlag}
	args = append(args, patterns...)
	for _, dir := range strings.Fields(mods.String()) {
		args = append(args, filepath.Join(dir, "..."))
	}
	vet := exec.Command("go", args...)
	// The first report settles it: go vet is stopped there, so that a
	// program with pipelines pays for the probe only up to the first.
	out := &probeOutput{stop: func() { killGroup(vet) }}
	vet.Stdout, vet.Stderr = out, out
	err = d.runCmd(vet)
	return err == nil && !out.found
}

// probeOutput watches go vet's output for the probe's message.
type probeOutput struct {
	mu    sync.Mutex
	buf   []byte // the last, incomplete line
	found bool
	stop  func()
}

func (o *probeOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			break
		}
		if !o.found && bytes.Contains(o.buf[:i], []byte(deadlinecensus.ProbeMessage)) {
			o.found = true
			o.stop()
		}
		o.buf = o.buf[i+1:]
	}
	return len(p), nil
}
