package deadlinecensus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var incidentPkgs = []string{"./llm", "./api", "./job", "./queue", "./batch", "./cmd/..."}

// acceptAll gives every row of a baseline a reason, so that the gate fails
// only on what changed.
func acceptAll(data []byte) []byte {
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines[i] = l + " reviewed"
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

func replaceIn(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBaselineSurvivesEdits: an unrelated func literal at the top of a
// function (it renumbers the closures after it: batch.Run$1 becomes
// batch.Run$2) and a function moved within its file (its deadline's line
// changes) do not fail the gate; a new deadline place does.
func TestBaselineSurvivesEdits(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mod")
	if err := os.CopyFS(dir, os.DirFS(testdata(t))); err != nil {
		t.Fatal(err)
	}
	before, err := Run(mustLoad(t, dir, incidentPkgs...))
	if err != nil {
		t.Fatal(err)
	}
	base, err := parseBaseline("b", acceptAll(formatBaseline(before, rowsOf(before, false), nil)), false)
	if err != nil {
		t.Fatal(err)
	}

	replaceIn(t, filepath.Join(dir, "batch", "batch.go"), "func Run(c *llm.Client, items []string) {\n", "func Run(c *llm.Client, items []string) {\n\t_ = func() {}\n")
	worker := filepath.Join(dir, "queue", "worker.go")
	handle := `func (w *Worker) handle(item string) {`
	data, _ := os.ReadFile(worker)
	i := strings.Index(string(data), handle)
	moved := string(data[:i]) // handle is last: move it above Run
	fn := string(data[i:])
	moved = strings.Replace(moved, "// Run works until the channel closes.", fn+"\n// Run works until the channel closes.", 1)
	if err := os.WriteFile(worker, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	// A new caller with its own deadline place, in a new file.
	if err := os.WriteFile(filepath.Join(dir, "job", "more.go"), []byte(`package job

import (
	"context"
	"time"
)

// Again is a new entry.
func (n *Nightly) Again() {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	n.LLM.Complete(ctx, "again")
}
`), 0o644); err != nil {
		t.Fatal(err)
	}

	after, err := Run(mustLoad(t, dir, incidentPkgs...))
	if err != nil {
		t.Fatal(err)
	}
	var sawRenumbered, sawMoved bool
	for _, r := range after.Pipelines[0].Callers {
		sawRenumbered = sawRenumbered || short(r.Entry) == "batch.Run$2"
		sawMoved = sawMoved || short(r.Entry) == "queue.(*Worker).Run" && r.Source != "queue/worker.go:29:17"
	}
	if !sawRenumbered || !sawMoved {
		t.Fatalf("the edits did not change the census (renumbered %v, moved %v): the test tests nothing", sawRenumbered, sawMoved)
	}
	fails, notes := gate(after, base, false)
	if len(fails) != 1 || !strings.Contains(fails[0], "new entry path not in the baseline: job.(*Nightly).Again -> llm.(*Client).Complete (deadline 300s, needs 72s); deadline set at job.(*Nightly).Again: context.WithTimeout(context.Background(), 300 * time.Second)") {
		t.Errorf("gate after the edits: want only the new caller to fail, got %q", fails)
	}
	if len(notes) != 0 {
		t.Errorf("notes after the edits: %q", notes)
	}
}

// TestFormat1Baseline: a baseline written before format 2 (keyed by the
// whole path) is still read: its rows match by pipeline, entry and
// deadline, its reasons hold, the gate says so in a note, and -update
// rewrites it in format 2 keeping the reasons.
func TestFormat1Baseline(t *testing.T) {
	c := incident(theCensus(t))
	file := filepath.Join(testdata(t), "format1.baseline")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	base, err := parseBaseline(file, data, false)
	if err != nil {
		t.Fatal(err)
	}
	if !base.legacy {
		t.Fatal("format1.baseline read as format 2")
	}
	fails, notes := gate(c, base, false)
	if len(fails) != 0 {
		t.Errorf("gate with the accepted format 1 baseline: %q", fails)
	}
	// The mock's method was gated as production in format 1; it is a test
	// entry now, so its row is stale.
	if len(notes) != 2 || !strings.Contains(notes[0], "format 1") || !strings.Contains(notes[1], "queue.(*Recorder).Complete") {
		t.Errorf("notes: %q", notes)
	}
	again := formatBaseline(c, rowsOf(c, false), base)
	if !strings.Contains(string(again), baseFormat+"\n") || strings.Count(string(again), "tracked in #42") != 2 {
		t.Errorf("-update from format 1 lost the reasons or the format line:\n%s", again)
	}
	if strings.Contains(string(again), "Run$1") && !strings.Contains(string(again), "batch.Run$1 -> ") {
		t.Errorf("a key holds a closure number:\n%s", again)
	}
	b2, err := parseBaseline(file, again, false)
	if err != nil || b2.legacy {
		t.Fatalf("rewritten baseline: %v (legacy %v)", err, b2 != nil && b2.legacy)
	}
	if fails, notes := gate(c, b2, false); len(fails) != 0 || len(notes) != 0 {
		t.Errorf("gate with the rewritten baseline: %q %q", fails, notes)
	}
}

// TestGateTests: entries declared in _test.go files (the test and the
// mock's method) are not gated by default; -gate-tests lists them apart
// and gates them.
func TestGateTests(t *testing.T) {
	c := incident(theCensus(t))
	prod := formatBaseline(c, rowsOf(c, false), nil)
	if strings.Contains(string(prod), "TestCompleteShortDeadline") || strings.Contains(string(prod), "Recorder") {
		t.Errorf("test entries in the default baseline:\n%s", prod)
	}
	all := formatBaseline(c, rowsOf(c, true), nil)
	i := strings.Index(string(all), "# test entries")
	if i < 0 || !strings.Contains(string(all[i:]), "TestCompleteShortDeadline") || !strings.Contains(string(all[i:]), "queue.(*Recorder).Complete") {
		t.Fatalf("-gate-tests baseline lacks the test section:\n%s", all)
	}
	base, err := parseBaseline("b", all, false)
	if err != nil {
		t.Fatal(err)
	}
	fails, _ := gate(c, base, true)
	var testFails int
	for _, f := range fails {
		if strings.Contains(f, "TestCompleteShortDeadline") {
			testFails++
		}
	}
	if testFails != 1 {
		t.Errorf("-gate-tests: want the short test deadline to fail, got %q", fails)
	}
	// The same baseline without -gate-tests: its test rows are ignored,
	// not reported as stale.
	fails, notes := gate(c, base, false)
	for _, f := range append(fails, notes...) {
		if strings.Contains(f, "Test") || strings.Contains(f, "Recorder") {
			t.Errorf("without -gate-tests: %s", f)
		}
	}
}

// TestSplitRow: a '|' inside a place is escaped; the reason keeps its own.
func TestSplitRow(t *testing.T) {
	got := splitRow(`a | b | f: x(1\|2) | d | e | f | yes | no | p -> q | why | because`, 10)
	if len(got) != 10 || got[2] != "f: x(1|2)" || got[9] != "why | because" {
		t.Errorf("splitRow: %q", got)
	}
}
