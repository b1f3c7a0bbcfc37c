package deadlinecensus

import (
	"bytes"
	"strings"
	"testing"
)

// TestCommandHelp: -h prints the census's help and exits 0; a bad limit
// is a usage error.
func TestCommandHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Command([]string{"-h"}, &out, &errb); code != exitOK {
		t.Errorf("-h: exit %d, want 0", code)
	}
	for _, want := range []string{"usage: retryvet census", "-format", "html", "-gate-tests", "-max-rows", "-tests", "Exit 0 fine, 1 the baseline gate failed, 2 usage or load error", "the exit is 2\neven if the gate failed too"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, errb.String())
		}
	}
	errb.Reset()
	if code := Command([]string{"-max-rows", "0", "."}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "must be positive") {
		t.Errorf("-max-rows 0: exit %d: %s", code, errb.String())
	}
}
