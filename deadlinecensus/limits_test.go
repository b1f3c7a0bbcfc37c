package deadlinecensus

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// render is everything the census prints for c: every format and the
// baseline.
func render(t *testing.T, c *Census) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range Formats {
		var buf bytes.Buffer
		if err := Write(&buf, c, f, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		out[f] = buf.String()
	}
	out["baseline"] = string(formatBaseline(c, rowsOf(c, false), nil))
	return out
}

// TestTruncatedCensusIsDeterministic: testdata/limits has 1296 entry paths
// to one pipeline. With the limits lowered, the census keeps the same
// subset on every run (two loads, two runs each: the call graph's edge
// order and map iteration differ between them), says so in every format,
// and the gate compares it only with a baseline written with the same
// limits.
func TestTruncatedCensusIsDeterministic(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "limits"))
	if err != nil {
		t.Fatal(err)
	}
	byRows := Limits{Rows: 100, Steps: DefaultLimits.Steps, Depth: DefaultLimits.Depth}
	bySteps := Limits{Rows: DefaultLimits.Rows, Steps: 150, Depth: DefaultLimits.Depth}
	var first, firstSteps map[string]string
	var c *Census
	var p *Program
	for load := 0; load < 2; load++ {
		p = mustLoad(t, dir)
		for run := 0; run < 2; run++ {
			c, err = RunWith(p, byRows)
			if err != nil {
				t.Fatal(err)
			}
			got := render(t, c)
			cs, err := RunWith(p, bySteps)
			if err != nil {
				t.Fatal(err)
			}
			gotSteps := render(t, cs)
			if first == nil {
				first, firstSteps = got, gotSteps
				if tr := cs.Pipelines[0].Truncated; tr == nil || tr.Limit != "steps" {
					t.Errorf("steps limit: truncation %+v, want the steps limit", tr)
				}
				continue
			}
			for f := range got {
				if got[f] != first[f] {
					t.Errorf("load %d run %d: %s output differs from the first run", load, run, f)
				}
				if gotSteps[f] != firstSteps[f] {
					t.Errorf("load %d run %d: %s output (steps limit) differs from the first run", load, run, f)
				}
			}
		}
	}
	if len(c.Pipelines) != 1 {
		t.Fatalf("pipelines: %d, want 1", len(c.Pipelines))
	}
	pl := c.Pipelines[0]
	tr := pl.Truncated
	if tr == nil || tr.Limit != "rows" || tr.RowsKept != 100 || len(pl.Callers) != 100 {
		t.Fatalf("truncation %+v with %d rows, want the rows limit and 100 rows kept", tr, len(pl.Callers))
	}
	// The subset is the shortest paths, taken in the walk's name order:
	// the first callers of remote.Fetch are fanin.l1a's.
	for _, r := range pl.Callers {
		if len(r.Path) != 5 || r.Path[3] != "example.com/limits/fanin.l1a" {
			t.Errorf("kept row %v: want a path through fanin.l1a", shortPath(r.Path))
			break
		}
	}
	// Every format says so.
	for f, want := range map[string]string{
		"text":     "truncated: the walk hit its rows limit (rows=100 steps=200000 depth=40); the 100 entry paths kept are the shortest",
		"markdown": "- **truncated: the walk hit its rows limit (rows=100 steps=200000 depth=40)",
		"html":     `<p class="trunc">truncated: the walk hit its rows limit`,
		"baseline": "# truncated: example.com/limits/remote.Fetch: rows limit hit, 100 entry paths kept (the shortest)",
	} {
		if !strings.Contains(first[f], want) {
			t.Errorf("%s output lacks %q:\n%s", f, want, first[f])
		}
	}
	var doc struct {
		Limits    map[string]int `json:"limits"`
		Truncated []string       `json:"truncated"`
		Pipelines []struct {
			Truncated *struct {
				RowsKept int            `json:"rowsKept"`
				Limit    string         `json:"limit"`
				Limits   map[string]int `json:"limits"`
			} `json:"truncated"`
		} `json:"pipelines"`
	}
	if err := json.Unmarshal([]byte(first["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if jt := doc.Pipelines[0].Truncated; jt == nil || jt.RowsKept != 100 || jt.Limit != "rows" || jt.Limits["rows"] != 100 || doc.Limits["rows"] != 100 || len(doc.Truncated) != 1 {
		t.Errorf("json truncation: %s", first["json"][:min(len(first["json"]), 600)])
	}

	// The baseline stays small: one row per entry and deadline place, not
	// one per path.
	if rows := rowsOf(c, false); len(rows) != 6 {
		t.Errorf("baseline rows: %d, want 6 (six entries, one deadline each)", len(rows))
	}

	// The gate: same limits compare; other limits, or a baseline without
	// a record of its limits, are refused, naming the pipeline.
	base, err := parseBaseline("b", []byte(first["baseline"]), false)
	if err != nil {
		t.Fatal(err)
	}
	fails, _ := gate(c, base, false)
	for _, f := range fails {
		if strings.Contains(f, "cannot compare") {
			t.Errorf("same limits refused: %s", f)
		}
	}
	other, err := RunWith(p, Limits{Rows: 200, Steps: DefaultLimits.Steps, Depth: DefaultLimits.Depth})
	if err != nil {
		t.Fatal(err)
	}
	fails, _ = gate(other, base, false)
	if len(fails) != 1 || !strings.Contains(fails[0], "cannot compare: the census of example.com/limits/remote.Fetch was truncated (rows limit hit, 200 entry paths kept, limits rows=200 steps=200000 depth=40) but the baseline was written with limits rows=100 steps=200000 depth=40") {
		t.Errorf("other limits: %q", fails)
	}
	noLimits := strings.ReplaceAll(first["baseline"], "# limits:", "# was:")
	base, _ = parseBaseline("b", []byte(noLimits), false)
	fails, _ = gate(c, base, false)
	if len(fails) != 1 || !strings.Contains(fails[0], "the baseline was written without a record of its limits") {
		t.Errorf("no limits line: %q", fails)
	}
}

func mustLoad(t *testing.T, dir string, pkgs ...string) *Program {
	t.Helper()
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	p, err := Load(Options{Dir: dir, Tests: true}, pkgs...)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Broken) > 0 {
		t.Fatalf("%s has errors: %s %s", dir, p.Broken[0].PkgPath, p.Broken[0].Errors)
	}
	return p
}
