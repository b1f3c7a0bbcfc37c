package deadlinecensus

import (
	"bytes"
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

// copyTestdata copies the testdata module to a temporary directory, to be
// edited.
func copyTestdata(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mod")
	if err := os.CopyFS(dir, os.DirFS(testdata(t))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGateSeesRetryChanges: the baseline row carries the retry's attempts
// and its worst-case schedule, so that a retry that makes 5 attempts where
// it made 3 fails the gate, naming the old and the new value, although the
// time it needs before its first retry (the first wait and the reserve) is
// the same. A retry that is gone is said so.
func TestGateSeesRetryChanges(t *testing.T) {
	dir := copyTestdata(t)
	before, err := Run(mustLoad(t, dir, incidentPkgs...))
	if err != nil {
		t.Fatal(err)
	}
	data := formatBaseline(before, rowsOf(before, false), nil)
	if !strings.Contains(string(data), "| 72s      | 3        | waits 7s, 11s = 18s | 40s ") {
		t.Fatalf("the baseline lacks the attempts and the schedule:\n%s", data)
	}
	base, err := parseBaseline("b", acceptAll(data), false)
	if err != nil {
		t.Fatal(err)
	}
	if fails, _ := gate(before, base, false); len(fails) != 0 {
		t.Fatalf("gate on unchanged code: %q", fails)
	}

	client := filepath.Join(dir, "llm", "client.go")
	replaceIn(t, client, "var waits = []time.Duration{7 * time.Second, 11 * time.Second}", "var waits = []time.Duration{7 * time.Second, 11 * time.Second, 13 * time.Second, 17 * time.Second}")
	replaceIn(t, client, "for i := 0; i < 2 && err != nil; i++ {", "for i := 0; i < 4 && err != nil; i++ {")
	more, err := Run(mustLoad(t, dir, incidentPkgs...))
	if err != nil {
		t.Fatal(err)
	}
	if got := more.Pipelines[0].Req.RequiredString(); got != "72s" {
		t.Fatalf("required time %s after the edit, want 72s (unchanged: the test tests the attempts alone)", got)
	}
	fails, _ := gate(more, base, false)
	if len(fails) != 5 {
		t.Fatalf("gate after 3 -> 5 attempts: want every row to fail, got %q", fails)
	}
	for _, f := range fails {
		if !strings.Contains(f, "attempts 3 -> 5, worst-case schedule waits 7s, 11s = 18s -> waits 7s, 11s, 13s, 17s = 48s (baseline line ") || strings.Contains(f, "required time") {
			t.Errorf("attempts change: %s", f)
		}
	}

	// No retry any more: the loop makes no second attempt.
	replaceIn(t, client, "for i := 0; i < 4 && err != nil; i++ {", "for i := 0; i < 0 && err != nil; i++ {")
	gone, err := Run(mustLoad(t, dir, incidentPkgs...))
	if err != nil {
		t.Fatal(err)
	}
	fails, notes := gate(gone, base, false)
	if len(gone.Pipelines) == 0 {
		// The function is no pipeline any more: its rows are stale.
		if len(notes) != 5 || !strings.Contains(notes[0], "no longer finds") {
			t.Errorf("retry removed: notes %q", notes)
		}
		return
	}
	if len(fails) == 0 {
		t.Fatal("retry removed: the gate passes")
	}
	for _, f := range fails {
		if strings.Contains(f, "required time -") || !strings.Contains(f, "the retry is gone: llm.(*Client).Complete no longer retries") || !strings.Contains(f, "it made 3 attempts and needed 72s") {
			t.Errorf("retry removed: %s", f)
		}
	}
}

// TestFormat2Baseline: a baseline written before the attempts and schedule
// columns is still read; its reasons hold; the gate says on stderr that
// -update rewrites it, and -update does, keeping the reasons.
func TestFormat2Baseline(t *testing.T) {
	c := incident(theCensus(t))
	file := filepath.Join(testdata(t), "format2.baseline")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	base, err := parseBaseline(file, data, false)
	if err != nil {
		t.Fatal(err)
	}
	if base.format != 2 {
		t.Fatalf("format2.baseline read as format %d", base.format)
	}
	g := runGate(c, base, false)
	if len(g.Fails) != 0 {
		t.Errorf("gate with the accepted format 2 baseline: %q", g.Fails)
	}
	if len(g.Notes) < 1 || !strings.Contains(g.Notes[0], "format 2") || !strings.Contains(g.Notes[0], "-update rewrites it in format 3") {
		t.Errorf("notes: %q", g.Notes)
	}
	if v := g.Verdict(file); v != "gate: passed, 5 rows (2 accepted with a reason)" {
		t.Errorf("verdict: %s", v)
	}
	again := formatBaseline(c, rowsOf(c, false), base)
	if !strings.Contains(string(again), "# format: 3\n") || strings.Count(string(again), "tracked in #42") != 2 {
		t.Errorf("-update from format 2 lost the reasons or the format line:\n%s", again)
	}
	b3, err := parseBaseline(file, again, false)
	if err != nil || b3.format != 3 {
		t.Fatalf("rewritten baseline: %v", err)
	}
	if g := runGate(c, b3, false); len(g.Fails) != 0 || len(g.Notes) != 0 {
		t.Errorf("gate with the rewritten baseline: %q %q", g.Fails, g.Notes)
	}
}

// TestCommandGateVerdict: -update says how many rows need a reason and
// which, the gate on the unchanged code then fails on exactly those and
// ends with a verdict line, and passes once they carry a reason.
func TestCommandGateVerdict(t *testing.T) {
	td := testdata(t)
	file := filepath.Join(t.TempDir(), "census.baseline")
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		wd, _ := os.Getwd()
		if err := os.Chdir(td); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		code := Command(append(args, incidentPkgs...), &out, &errb)
		return code, errb.String()
	}
	code, stderr := run("-baseline", file, "-update")
	if code != 0 {
		t.Fatalf("-update: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"wrote " + file + " (5 rows)",
		"2 of 5 rows need a reason before the gate passes",
		"  retry can never start: batch.Run (closure) -> llm.(*Client).Complete (deadline 22s, needs 72s)",
		"  retry can never start: queue.(*Worker).Run -> llm.(*Client).Complete (deadline 40s, needs 72s)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("-update does not say %q:\n%s", want, stderr)
		}
	}
	code, stderr = run("-baseline", file)
	if code != exitGate || !strings.Contains(stderr, "\ngate: failed, 2 of 5 rows (2 retry can never start): ") || !strings.HasSuffix(stderr, "regenerate it with -update\n") {
		t.Errorf("gate: exit %d:\n%s", code, stderr)
	}
	data, _ := os.ReadFile(file)
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(l, "| no ") {
			lines[i] = l + " the broker redelivers"
		}
	}
	os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644)
	code, stderr = run("-baseline", file)
	if code != exitOK || stderr != "gate: passed, 5 rows (2 accepted with a reason)\n" {
		t.Errorf("gate with reasons: exit %d:\n%s", code, stderr)
	}
	code, stderr = run("-baseline", file, "-update")
	if code != exitOK || !strings.Contains(stderr, "every row passes the gate as written (gate: passed, 5 rows (2 accepted with a reason))") {
		t.Errorf("-update of an accepted baseline: exit %d:\n%s", code, stderr)
	}
}

// TestCorruptBaseline: a baseline of an unknown format, or a file that is
// no baseline, is an error naming it and is left as it is; -update does not
// replace a file that is no baseline at all.
func TestCorruptBaseline(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		wd, _ := os.Getwd()
		if err := os.Chdir(testdata(t)); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		code := Command(append(args, "./llm"), &out, &errb)
		return code, errb.String()
	}
	for name, tc := range map[string]struct {
		content   string
		err       string
		updateErr string // "" when -update replaces it
	}{
		"newer": {"# retryvet census baseline\n# format: 9\n", "newer.baseline:2: baseline format 9 is not one this retryvet reads (1 to 3)", "format 9"},
		"alien": {"module example.com/x\n\ngo 1.22\n", "alien.baseline:1: malformed baseline row", "does not look like a census baseline"},
		"cut":   {"# retryvet census baseline\n# format: 3\nexample.com/t/llm.(*Client).Complete | example.com/t/api.(*Server).Chat | api.(*Server).Chat: con", "cut.baseline:3: malformed baseline row", ""},
	} {
		file := filepath.Join(dir, name+".baseline")
		os.WriteFile(file, []byte(tc.content), 0o644)
		code, stderr := run("-baseline", file)
		if code != exitUsage || !strings.Contains(stderr, tc.err) || !strings.Contains(stderr, "the file is left as it is") {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
		}
		code, stderr = run("-baseline", file, "-update")
		after, _ := os.ReadFile(file)
		if tc.updateErr != "" {
			if code != exitUsage || !strings.Contains(stderr, tc.updateErr) || string(after) != tc.content {
				t.Errorf("%s -update: exit %d: %s", name, code, stderr)
			}
		} else if code != exitOK || !strings.Contains(string(after), "# format: 3\n") || !strings.Contains(stderr, "1 malformed lines of the old file dropped") {
			t.Errorf("%s -update: exit %d: %s\n%s", name, code, stderr, after)
		}
	}
}
