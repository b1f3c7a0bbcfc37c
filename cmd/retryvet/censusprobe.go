package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

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
// in it), as go vet -vettool=retryvet -census-probe, and returns the files
// it reported. It is sure only when go vet succeeded; any error (a package
// that does not type-check, a malformed values file, a go command that
// fails) leaves it to the full census, which says it. A signal stops go
// vet and its tool processes with the census.
func censusProbe(patterns []string) ([]string, bool) {
	self, err := os.Executable()
	if err != nil {
		return nil, false
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, false
	}
	d := &driver{tool: self, stdout: io.Discard, stderr: io.Discard}
	stop := d.handleSignals()
	defer stop()
	var mods bytes.Buffer
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}")
	list.Stdout = &mods
	if err := d.runCmd(list); err != nil {
		return nil, false
	}
	// -json: the reports are output, not a failure; go vet exits 1 only
	// on an error.
	args := []string{"vet", "-vettool=" + self, "-json", "-" + probeFlag}
	args = append(args, patterns...)
	for _, dir := range strings.Fields(mods.String()) {
		args = append(args, filepath.Join(dir, "..."))
	}
	var out bytes.Buffer
	vet := exec.Command("go", args...)
	vet.Stdout, vet.Stderr = &out, &out
	if err := d.runCmd(vet); err != nil {
		return nil, false
	}
	files, ok := probeFiles(out.String(), wd)
	return files, ok
}

// probeFiles are the files of the probe's reports in go vet's -json
// output (each "posn": "file:line:col", the file absolute or relative to
// dir), each once.
func probeFiles(out, dir string) ([]string, bool) {
	seen := map[string]bool{}
	var files []string
	for _, m := range probePosn.FindAllStringSubmatch(out, -1) {
		file := m[1]
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		if !seen[file] {
			seen[file] = true
			files = append(files, file)
		}
	}
	if strings.Count(out, deadlinecensus.ProbeMessage) != len(probePosn.FindAllString(out, -1)) {
		return nil, false // a report this reader does not understand
	}
	return files, true
}

// probePosn is the position of a report in go vet's -json output.
var probePosn = regexp.MustCompile(`"posn": "(.+?\.go):\d+:\d+"`)
