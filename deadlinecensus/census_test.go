package deadlinecensus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The testdata module reproduces the incident: the pipeline in package llm
// (waits 7s, 11s, guard reserve 65s => 72s), four callers in their own
// packages, a CLI with context.Background, and the harder cases in cases/.

var (
	loadOnce sync.Once
	census   *Census
	program  *Program
	loadErr  error
)

func testdata(t *testing.T) string {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func theCensus(t *testing.T) *Census {
	t.Helper()
	loadOnce.Do(func() {
		var p *Program
		p, loadErr = Load(Options{Dir: testdata(t), Tests: true}, "./...")
		program = p
		if loadErr == nil && len(p.Broken) > 0 {
			loadErr = fmt.Errorf("testdata has errors: %s", p.Broken[0].Errors)
		}
		if loadErr == nil {
			census, loadErr = Run(p)
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return census
}

func pipeline(t *testing.T, c *Census, name string) *Pipeline {
	t.Helper()
	for _, p := range c.Pipelines {
		if p.Function == name {
			return p
		}
	}
	var names []string
	for _, p := range c.Pipelines {
		names = append(names, p.Function)
	}
	t.Fatalf("no pipeline %s; have %v", name, names)
	return nil
}

type want struct {
	entry, kind, path, deadline, source, canStart, p99 string
}

func checkRows(t *testing.T, p *Pipeline, wants []want) {
	t.Helper()
	for _, w := range wants {
		found := false
		for _, r := range p.Callers {
			if short(r.Entry) != w.entry || (w.path != "" && shortPath(r.Path) != w.path) {
				continue
			}
			found = true
			got := want{short(r.Entry), r.Kind, w.path, r.D.String(), r.Source, r.CanStart.String(), r.P99.String()}
			if w.source == "" {
				got.source = ""
			}
			if got != w {
				t.Errorf("row %s:\n got  %+v\n want %+v", w.entry, got, w)
			}
		}
		if !found {
			t.Errorf("no row for entry %s (path %q)", w.entry, w.path)
		}
	}
}

func TestIncident(t *testing.T) {
	c := theCensus(t)
	p := pipeline(t, c, "example.com/t/llm.(*Client).Complete")
	r := p.Req
	if !r.Known || r.Required.Seconds() != 72 || r.P99.Seconds() != 40 {
		t.Errorf("requirement: got R=%v known=%v p99=%v, want 72s and 40s", r.Required, r.Known, r.P99)
	}
	if !strings.HasPrefix(r.Derivation, "guard at llm/client.go:58: remaining >= wait + reserve (first wait 7s + reserve 65s)") {
		t.Errorf("derivation: %s", r.Derivation)
	}
	if p.Position != "llm/client.go:54:18" {
		t.Errorf("position %s", p.Position)
	}
	checkRows(t, p, []want{
		{"api.(*Server).Chat", "http-handler", "api.(*Server).Chat -> llm.(*Client).Complete", "100s", "api/api.go:24:17", "yes", "yes"},
		{"job.(*Nightly).Run", "goroutine", "job.(*Nightly).Run -> llm.(*Client).Complete", "200s", "job/job.go:20:17", "yes", "yes"},
		{"queue.(*Worker).Run", "goroutine", "queue.(*Worker).Run -> queue.(*Worker).handle -> llm.(*Client).Complete", "40s", "queue/worker.go:29:17", "no", "yes"},
		{"batch.Run$1", "goroutine", "batch.Run$1 -> llm.(*Client).Complete", "22s", "batch/batch.go:20:19", "no", "no"},
		{"cli.main", "main", "cli.main -> llm.(*Client).Complete", "none", "", "yes", "yes"},
		{"llm.TestCompleteShortDeadline", "test", "llm.TestCompleteShortDeadline -> llm.(*Client).Complete", "5s", "", "no", "no"},
	})
}

func TestCases(t *testing.T) {
	c := theCensus(t)
	p := pipeline(t, c, "example.com/t/llm.(*Client).Complete")
	checkRows(t, p, []want{
		// WithDeadline(time.Now().Add(d)).
		{"cases.DeadlineFromNow", "exported", "", "30s", "cases/cases.go:18:17", "no", "no"},
		// Nested: the inner 300s does not extend the outer 50s.
		{"cases.Nested", "exported", "", "50s", "cases/cases.go:25:19", "no", "yes"},
		// A deadline read from the environment cannot be folded.
		{"cases.Unfoldable", "exported", "", "unknown", "cases/cases.go:35:17", "unknown", "unknown"},
		// A config struct literal field folds.
		{"cases.FromConfig", "exported", "", "90s", "", "yes", "yes"},
		// Recursion: the walk terminates and keeps the deadline.
		{"cases.Tree", "exported", "cases.Tree -> cases.Walk -> llm.(*Client).Complete", "90s", "", "yes", "yes"},
		// One entry, two paths, two deadlines.
		{"cases.TwoPaths", "exported", "cases.TwoPaths -> cases.fast -> llm.(*Client).Complete", "30s", "", "no", "no"},
		{"cases.TwoPaths", "exported", "cases.TwoPaths -> cases.slow -> llm.(*Client).Complete", "120s", "", "yes", "yes"},
		// A generic function on the path.
		{"cases.Generic", "exported", "cases.Generic -> cases.Each -> llm.(*Client).Complete", "45s", "", "no", "yes"},
		// http.TimeoutHandler around a handler.
		{"cases.Handler$1", "http-handler", "", "30s", "", "no", "no"},
		// A helper that returns the context it derives.
		{"cases.ViaHelper", "exported", "", "35s", "cases/cases.go:118:9", "no", "no"},
		// Two pipelines sharing a caller.
		{"cases.Both", "exported", "cases.Both -> llm.(*Client).Complete", "10s", "", "no", "no"},
	})
	for _, r := range p.Callers {
		if short(r.Entry) == "cases.Each" {
			t.Errorf("the generic body of cases.Each is listed as an entry: %+v", r)
		}
	}
	s := pipeline(t, c, "example.com/t/search.(*Index).Query")
	if s.Req.Required.Seconds() != 12 || s.Req.AtLeast {
		t.Errorf("search requirement %v (%s), want 12s: 5s attempt + 2s wait + 5s attempt", s.Req.Required, s.Req.Derivation)
	}
	checkRows(t, s, []want{{"cases.Both", "exported", "cases.Both -> search.(*Index).Query", "10s", "", "no", "yes"}})
	// A retry whose operation is behind an interface: the call graph finds
	// the remote call the model could not see.
	d := pipeline(t, c, "example.com/t/cases.Deliver")
	if !strings.Contains(d.Req.Derivation, "through the call graph (example.com/t/transport.(*HTTP).Send)") {
		t.Errorf("Deliver derivation: %s", d.Req.Derivation)
	}
	checkRows(t, d, []want{{"cases.Notify", "exported", "cases.Notify -> cases.Deliver", "2s", "cases/iface.go:31:17", "no", "unknown"}})
	// A pipeline that takes no context: no deadline reaches it.
	r := pipeline(t, c, "example.com/t/search.(*Index).Refresh")
	checkRows(t, r, []want{{"cases.Refresh", "exported", "cases.Refresh -> search.(*Index).Refresh", "none", "", "yes", "unknown"}})
}

// TestJSONShape checks -format json against the shape DESIGN.md gives.
func TestJSONShape(t *testing.T) {
	c := theCensus(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	hasAll := func(what string, m map[string]any, want ...string) {
		t.Helper()
		for _, k := range want {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: no field %q (have %v)", what, k, keys(m))
			}
		}
	}
	pls, ok := doc["pipelines"].([]any)
	if !ok || len(pls) == 0 {
		t.Fatalf("pipelines: %v", doc["pipelines"])
	}
	var found bool
	for _, pl := range pls {
		p := pl.(map[string]any)
		hasAll("pipeline", p, "function", "position", "policy", "callers")
		pol := p["policy"].(map[string]any)
		hasAll("policy", pol, "waits", "reserve", "requiredSeconds", "p99Seconds", "derivation")
		if _, ok := pol["waits"].([]any); !ok {
			t.Errorf("policy.waits is not a list: %v", pol["waits"])
		}
		for _, cl := range p["callers"].([]any) {
			c := cl.(map[string]any)
			hasAll("caller", c, "entry", "kind", "path", "deadline", "deadlineSeconds", "deadlineSource", "retryCanStart", "coversP99")
			if !slices.Contains([]string{"main", "init", "http-handler", "goroutine", "exported", "test", "other"}, c["kind"].(string)) {
				t.Errorf("kind %v", c["kind"])
			}
			for _, k := range []string{"retryCanStart", "coversP99"} {
				if v := c[k].(string); v != "yes" && v != "no" && v != "unknown" {
					t.Errorf("%s %q", k, v)
				}
			}
			d := c["deadline"].(string)
			switch d {
			case "none", "unknown", "from caller":
				if c["deadlineSeconds"] != nil {
					t.Errorf("deadlineSeconds %v for deadline %s, want null", c["deadlineSeconds"], d)
				}
			default:
				if _, ok := c["deadlineSeconds"].(float64); !ok {
					t.Errorf("deadlineSeconds %v for deadline %s, want a number", c["deadlineSeconds"], d)
				}
			}
			if _, ok := c["path"].([]any); !ok {
				t.Errorf("path is not a list: %v", c["path"])
			}
		}
		if p["function"] != "example.com/t/llm.(*Client).Complete" {
			continue
		}
		found = true
		if pol["requiredSeconds"] != 72.0 || pol["p99Seconds"] != 40.0 || pol["reserve"] != "65s" {
			t.Errorf("policy %v", pol)
		}
		if ws := pol["waits"].([]any); len(ws) != 2 || ws[0] != "7s" || ws[1] != "11s" {
			t.Errorf("waits %v", ws)
		}
		for _, cl := range p["callers"].([]any) {
			c := cl.(map[string]any)
			if c["entry"] != "example.com/t/queue.(*Worker).Run" {
				continue
			}
			want := map[string]any{
				"kind":            "goroutine",
				"deadline":        "40s",
				"deadlineSeconds": 40.0,
				"deadlineSource":  "queue/worker.go:29:17",
				"retryCanStart":   "no",
				"coversP99":       "yes",
			}
			for k, v := range want {
				if c[k] != v {
					t.Errorf("queue row %s = %v, want %v", k, c[k], v)
				}
			}
			path := c["path"].([]any)
			if len(path) != 3 || path[0] != "example.com/t/queue.(*Worker).Run" || path[1] != "example.com/t/queue.(*Worker).handle" || path[2] != "example.com/t/llm.(*Client).Complete" {
				t.Errorf("queue path %v", path)
			}
		}
	}
	if !found {
		t.Error("no llm pipeline in the JSON")
	}
}

func TestTextAndMarkdown(t *testing.T) {
	c := theCensus(t)
	var text, md bytes.Buffer
	WriteText(&text, c)
	WriteMarkdown(&md, c)
	for _, s := range []string{
		"pipeline example.com/t/llm.(*Client).Complete (llm/client.go:54:18)",
		"needs 72s left for the first retry; p99 40s",
		"none (unbounded)",
		// Tests in one line per pipeline, with their own wording.
		"  tests: 2 test entry paths, shortest deadline 5s (llm.TestCompleteShortDeadline); 1 below what the retry needs: such a test cannot observe the retry (it passes whether or not the code waits); give it a long deadline and a watchdog that fails early (-tests lists them)",
		"census: 4 pipelines, 22 entry paths (and 2 test paths, apart)",
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text output lacks %q:\n%s", s, text.String())
		}
	}
	if strings.Contains(text.String(), "llm.TestCompleteShortDeadline  test") {
		t.Errorf("text output lists a test row without -tests:\n%s", text.String())
	}
	var all bytes.Buffer
	if err := Write(&all, c, "text", WriteOptions{Tests: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"tests (a test whose deadline is below the need cannot observe the retry):",
		"llm.TestCompleteShortDeadline: the test's deadline 5s is below the 72s the retry needs: the test cannot observe the retry (it passes whether or not the code waits); give the test a long deadline and a watchdog that fails early",
	} {
		if !strings.Contains(all.String(), s) {
			t.Errorf("text output with -tests lacks %q:\n%s", s, all.String())
		}
	}
	if !strings.Contains(md.String(), "| `queue.(*Worker).Run` | goroutine | 40s | queue/worker.go:29:17 | **no** | yes |") {
		t.Errorf("markdown output lacks the queue row:\n%s", md.String())
	}
}

// incident restricts a census to the incident's packages (not cases/).
func incident(c *Census) *Census {
	out := &Census{}
	for _, p := range c.Pipelines {
		q := *p
		q.Callers = nil
		for _, r := range p.Callers {
			if !strings.HasPrefix(r.Entry, "example.com/t/cases.") {
				q.Callers = append(q.Callers, r)
			}
		}
		if len(q.Callers) > 0 {
			out.Pipelines = append(out.Pipelines, &q)
		}
	}
	return out
}

func TestGate(t *testing.T) {
	c := incident(theCensus(t))
	dir := t.TempDir()
	file := filepath.Join(dir, "census.baseline")

	// A fresh baseline lists every row; the gate fails on queue and batch
	// until they carry a reason.
	data := formatBaseline(c, rowsOf(c, false), nil)
	if err := writeAtomic(file, data); err != nil {
		t.Fatal(err)
	}
	base, err := parseBaseline(file, data, false)
	if err != nil {
		t.Fatalf("the baseline we write does not parse: %v\n%s", err, data)
	}
	fails, _ := gate(c, base, false)
	if len(fails) != 2 || !strings.Contains(fails[0]+fails[1], "queue.(*Worker).Run") || !strings.Contains(fails[0]+fails[1], "batch.Run (closure)") {
		t.Fatalf("gate on a fresh baseline: want the queue and batch rows, got %q", fails)
	}
	for _, f := range fails {
		if !strings.HasPrefix(f, "retry can never start") {
			t.Errorf("fail: %s", f)
		}
	}

	// Accept both with a reason: the gate passes.
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(l, "| example.com/t/queue.(*Worker).Run") || strings.Contains(l, "| example.com/t/batch.Run (closure)") {
			lines[i] = l + " the broker redelivers; raising the deadline is tracked in #42"
		}
	}
	accepted := []byte(strings.Join(lines, "\n"))
	base, err = parseBaseline(file, accepted, false)
	if err != nil {
		t.Fatal(err)
	}
	if fails, _ := gate(c, base, false); len(fails) != 0 {
		t.Fatalf("gate with accepted rows: %q", fails)
	}

	// -update keeps the reasons.
	again := formatBaseline(c, rowsOf(c, false), base)
	if !bytes.Equal(again, formatBaseline(c, rowsOf(c, false), base)) {
		t.Error("baseline output is not stable")
	}
	if n := strings.Count(string(again), "tracked in #42"); n != 2 {
		t.Errorf("update kept %d reasons, want 2:\n%s", n, again)
	}

	// A new path not in the baseline fails.
	var without []string
	for _, l := range strings.Split(string(accepted), "\n") {
		if !strings.Contains(l, "| example.com/t/cmd/cli.main") {
			without = append(without, l)
		}
	}
	base, _ = parseBaseline(file, []byte(strings.Join(without, "\n")), false)
	fails, _ = gate(c, base, false)
	if len(fails) != 1 || !strings.Contains(fails[0], "new entry path not in the baseline: cli.main") {
		t.Errorf("new path: %q", fails)
	}

	// Drift: the baseline says the job had 150s.
	drifted := strings.Replace(string(accepted), "| 200s ", "| 150s ", 1)
	base, _ = parseBaseline(file, []byte(drifted), false)
	fails, _ = gate(c, base, false)
	if len(fails) != 1 || !strings.Contains(fails[0], "changed since the baseline") || !strings.Contains(fails[0], "deadline 150s -> 200s (baseline line") {
		t.Errorf("drift: %q", fails)
	}
	// Drift in R: the policy changed under an accepted row.
	drifted = strings.Replace(string(accepted), "| 72s ", "| 60s ", -1)
	base, _ = parseBaseline(file, []byte(drifted), false)
	fails, _ = gate(c, base, false)
	if len(fails) != 5 {
		t.Errorf("required drift: want every row to fail, got %q", fails)
	}
}

func TestCommandBaseline(t *testing.T) {
	td := testdata(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "census.baseline")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		wd, _ := os.Getwd()
		if err := os.Chdir(td); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		code := Command(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	pkgs := []string{"./llm", "./api", "./job", "./queue", "./batch", "./cmd/..."}

	// Usage errors.
	if code, _, _ := run("-format", "xml", "./llm"); code != 2 {
		t.Errorf("bad format: exit %d, want 2", code)
	}
	if code, _, stderr := run(append([]string{"-baseline", file}, pkgs...)...); code != 2 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("missing baseline: exit %d, %s", code, stderr)
	}
	// A malformed baseline is an error with its line number, and is left alone.
	bad := "# retryvet census baseline: (corrupted)\nexample.com/t/llm.(*Client).Complete | only three | columns\n"
	os.WriteFile(file, []byte(bad), 0o644)
	code, _, stderr := run(append([]string{"-baseline", file}, pkgs...)...)
	if code != 2 || !strings.Contains(stderr, "census.baseline:2: malformed baseline row") {
		t.Errorf("malformed baseline: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(file); string(b) != bad {
		t.Error("a malformed baseline was rewritten without -update")
	}

	// -update replaces it; then the gate fails on queue and batch.
	if code, _, stderr := run(append([]string{"-baseline", file, "-update"}, pkgs...)...); code != 0 {
		t.Fatalf("-update: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(append([]string{"-baseline", file}, pkgs...)...)
	if code != 1 {
		t.Fatalf("gate: exit %d, want 1\n%s", code, stderr)
	}
	if strings.Count(stderr, "FAIL:") != 2 || !strings.Contains(stderr, "queue.(*Worker).Run") || !strings.Contains(stderr, "batch.Run (closure)") {
		t.Errorf("gate output:\n%s", stderr)
	}
	if !strings.Contains(stdout, "pipeline example.com/t/llm.(*Client).Complete") {
		t.Errorf("census output:\n%s", stdout)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}
