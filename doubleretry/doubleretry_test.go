package doubleretry_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/retryvet/retryvet/doubleretry"
	"github.com/retryvet/retryvet/internal/testmod"
)

func TestDoubleRetry(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, dir, doubleretry.Analyzer,
		"./llm", "./anth", "./awssdk", "./rhttp", "./kube", "./quiet", "./chain", "./a", "./b", "./c", "./helper", "./conflict", "./grpcdial", "./layers", "./portsearch", "./dropped", "./reentry")
}

// TestModelCases runs the cases the first real-code runs found the retry
// model missing (testdata/gaps/gaps.go), kept apart as a record.
func TestModelCases(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, doubleretry.Analyzer, "./gaps")
}

// TestInterfaces runs nesting through interfaces (an implementation in the
// same package, implementations a provider package builds in its
// subpackages) and through a stream whose failure surfaces in Err().
func TestInterfaces(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, doubleretry.Analyzer, "./iface/run", "./iface/local", "./iface/stream", "./iface/core/...")
}

// TestTwoSources: a client local given the shared client or a copy of its
// settings has the count both agree on (5, not a library default assumed);
// a field set by an option a caller may pass leaves the constructor's
// value; sources that disagree claim no count.
func TestTwoSources(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, doubleretry.Analyzer, "./twosrc/...")
}

// TestTransport: a loop around an *http.Client whose Transport retries in
// its RoundTrip: a type of the package, or a client another package's
// constructor or variable builds (xtransport), beside clients whose
// transport sends once.
func TestTransport(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, dir, doubleretry.Analyzer, "./transport", "./xtransport/...", "./testwait")
}

// TestRepeatedWrites runs writes a retry repeats beside the lookalikes
// that stay quiet (repeated.go).
func TestRepeatedWrites(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	sideEffectsOn(t)
	analysistest.RunWithSuggestedFixes(testmod.Shared{T: t, Skip: func(kind, _ string) bool { return kind == "fact" }}, dir, doubleretry.Analyzer, "./repeated")
}

// TestIdempotencyKey runs POSTs a retry sends again with no idempotency
// key to an API that takes one (a known host; an API the package sends a
// key to elsewhere), beside requests that carry the key, go through a
// helper, are reads, are not retried, or go to an API with no sign of
// taking one (idemkey.go); the fix sets one key before the loop when the
// request is built there (idemkey.go.golden).
func TestIdempotencyKey(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	sideEffectsOn(t)
	analysistest.RunWithSuggestedFixes(testmod.Shared{T: t, Skip: func(kind, _ string) bool { return kind == "fact" }}, dir, doubleretry.Analyzer, "./idemkey", "./idemkey2")
}

// sideEffectsOn turns on the opt-in side-effect checks for one test.
func sideEffectsOn(t *testing.T) {
	if err := doubleretry.Analyzer.Flags.Set(doubleretry.SideEffectsFlag, "true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { doubleretry.Analyzer.Flags.Set(doubleretry.SideEffectsFlag, "false") })
}

// TestSideEffectsOptIn: repeated-write and no-idempotency-key are off by
// default (sideeffects.go) and on with the flag, on the same packages;
// consumed-body stays on either way.
func TestSideEffectsOptIn(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{false, true} {
		if err := doubleretry.Analyzer.Flags.Set(doubleretry.SideEffectsFlag, strconv.FormatBool(on)); err != nil {
			t.Fatal(err)
		}
		cats := map[string]int{}
		// The packages' want comments are for the flag on; what is
		// compared here is the categories reported, so the expectation
		// errors are dropped.
		for _, r := range analysistest.Run(dropErrors{}, dir, doubleretry.Analyzer, "./repeated", "./idemkey") {
			for _, d := range r.Diagnostics {
				cats[d.Category]++
			}
		}
		side := cats["repeated-write"] + cats["no-idempotency-key"]
		switch {
		case on && (cats["repeated-write"] == 0 || cats["no-idempotency-key"] == 0):
			t.Errorf("-sideeffects: categories %v, want repeated-write and no-idempotency-key", cats)
		case !on && side > 0:
			t.Errorf("default: %d side-effect findings (%v), want none: the checks are opt-in", side, cats)
		}
		if cats["consumed-body"] == 0 {
			t.Errorf("sideeffects=%t: no consumed-body finding (%v): that check is on by default", on, cats)
		}
	}
	doubleretry.Analyzer.Flags.Set(doubleretry.SideEffectsFlag, "false")
}

// dropErrors is an analysistest.Testing that discards what it is told.
type dropErrors struct{}

func (dropErrors) Errorf(string, ...any) {}

// TestConsumedBody runs retries that send again a request whose body the
// first attempt read (a loop, a go-retry closure), beside requests built
// in each attempt, bodies given back by GetBody or a seek, and a GET
// (body.go); and a request the retrying function is handed, built with a
// body by its caller or arriving through a client's Do, beside a helper
// handed GETs only and wrappers that rewind or skip bodies (param.go).
func TestConsumedBody(t *testing.T) {
	testmod.Download(t, "testdata")
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(testmod.Shared{T: t, Skip: func(kind, _ string) bool { return kind == "fact" }}, dir, doubleretry.Analyzer, "./body")
}
