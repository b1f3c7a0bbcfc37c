package deadlinecensus

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// The incident written the way real code writes it (testdata/incident, its
// own module): the wait, the guard and the Retry-After reading are helpers,
// Retry-After can raise the wait, a backup call follows the last attempt,
// and the queue holds the client as an llm.Completer. The census and the
// analyzer must give the seed's numbers: 72s needed; 100s and 200s can
// start, 40s and 22s cannot, no deadline can.

func incidentDir(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("testdata", "incident"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRealisticIncident(t *testing.T) {
	p, err := Load(Options{Dir: incidentDir(t)}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	pl := pipeline(t, c, "example.com/incident/llm.(*Client).Complete")
	r := pl.Req
	if !r.Known || r.AtLeast || r.Required.Seconds() != 72 || r.P99.Seconds() != 40 {
		t.Errorf("requirement: got R=%v known=%v atLeast=%v p99=%v (%s), want 72s and 40s", r.Required, r.Known, r.AtLeast, r.P99, r.Derivation)
	}
	if !strings.Contains(r.Derivation, "first wait 7s + reserve 65s") {
		t.Errorf("derivation: %s", r.Derivation)
	}
	checkRows(t, pl, []want{
		{"api.(*Server).Chat", "http-handler", "api.(*Server).Chat -> llm.(*Client).Complete", "100s", "api/api.go:24:17", "yes", "yes"},
		{"job.(*Nightly).Run", "goroutine", "job.(*Nightly).Run -> llm.(*Client).Complete", "200s", "job/job.go:20:17", "yes", "yes"},
		{"queue.(*Worker).Run", "goroutine", "queue.(*Worker).Run -> queue.(*Worker).handle -> llm.(*Client).Complete", "40s", "queue/worker.go:30:17", "no", "yes"},
		{"batch.Run$1", "goroutine", "batch.Run$1 -> llm.(*Client).Complete", "22s", "batch/batch.go:19:19", "no", "no"},
		{"cli.main", "main", "cli.main -> llm.(*Client).Complete", "none", "", "yes", "yes"},
	})
}

func TestRealisticIncidentAnalyzer(t *testing.T) {
	analysistest.Run(t, incidentDir(t), Analyzer, "./...")
}

// The seed incident as someone else wrote it (testdata/incident2): the
// waits are a package-level table indexed by the attempt and raised by
// Retry-After, the guard is a method that reads ctx.Deadline() against a
// clock the service holds in a func field, the pause adds a random spread
// to the wait (an interval: 7s to 8.75s, 11s to 13.75s), a call to the
// spare follows the loop, and the 40s worker reaches the pipeline through
// an interface its own package declares (the call graph, not a fact on
// the interface, says which implementation it holds). A mirror with the
// same 40s whose interface holds a local model is quiet.
func TestIncidentWrittenElsewhere(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "incident2"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(Options{Dir: dir}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	pl := pipeline(t, c, "example.com/incident2/assist.(*Service).Ask")
	r := pl.Req
	if !r.Known || r.AtLeast || r.Required.Seconds() != 72 || r.P99.Seconds() != 40 {
		t.Errorf("requirement: got R=%v known=%v atLeast=%v p99=%v (%s), want 72s and 40s", r.Required, r.Known, r.AtLeast, r.P99, r.Derivation)
	}
	if !strings.Contains(r.Derivation, "remaining >= wait + reserve (first wait 7s + reserve 65s)") {
		t.Errorf("derivation: %s", r.Derivation)
	}
	if got, want := r.Policy(), "waits 7s-8.75s, 11s-13.75s; reserve 65s"; got != want {
		t.Errorf("policy %q, want %q", got, want)
	}
	checkRows(t, pl, []want{
		{"web.(*Handler).ServeHTTP", "http-handler", "web.(*Handler).ServeHTTP -> assist.(*Service).Ask", "100s", "web/web.go:23:17", "yes", "yes"},
		{"queue.(*Worker).Serve", "goroutine", "queue.(*Worker).Serve -> queue.(*Worker).one -> assist.(*Service).Ask", "40s", "queue/queue.go:42:17", "no", "yes"},
		{"batch.Fan$1", "goroutine", "batch.Fan$1 -> assist.(*Service).Ask", "22s", "batch/batch.go:16:19", "no", "no"},
		{"ask.main", "main", "ask.main -> assist.(*Service).Ask", "none", "", "yes", "yes"},
	})
	for _, row := range pl.Callers {
		if strings.Contains(shortPath(row.Path), "Mirror") {
			t.Errorf("the mirror's asker is the local model, not the assistant: %s", shortPath(row.Path))
		}
	}
	analysistest.Run(t, dir, Analyzer, "./...")
}

// Deadline guards written as comparisons of instants (now.Add(wait +
// reserve).Before(dl), in a helper and in place) against a clock held in a
// func field, where the guard reads the base wait and the pause spreads it
// below that: R is that base + the reserve (9s), not the least the pause
// sleeps + the reserve. A check that the deadline has merely passed is no
// guard (testdata/guardtime).
func TestGuardComparesInstants(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "guardtime"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, Analyzer, "./...")
}
