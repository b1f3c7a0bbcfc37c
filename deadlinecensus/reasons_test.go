package deadlinecensus

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

func rowOf(t *testing.T, p *Pipeline, entry string) *Row {
	t.Helper()
	for _, r := range p.Callers {
		if short(r.Entry) == entry {
			return r
		}
	}
	t.Fatalf("no row for %s in %s", entry, p.Function)
	return nil
}

// TestReasons: every undecided production row says why and what would
// decide it, in words that fit the values file and the directives.
func TestReasons(t *testing.T) {
	c := theCensus(t)
	llm := pipeline(t, c, "example.com/t/llm.(*Client).Complete")
	for _, tc := range []struct {
		pipeline, entry, code, text, suggestion string
	}{
		{"example.com/t/cases.Deliver", "cases.Notify", codeP99,
			"p99 unknown: no //retryvet:p99 on cases.Deliver or on the call it retries",
			"declare //retryvet:p99 on cases.Deliver or set it in .retryvet.yml"},
		{"example.com/t/llm.(*Client).Complete", "cases.Unfoldable", codeUnfolded,
			"context.WithTimeout(time.Duration(n) * time.Second) cannot be folded to a constant (cases/cases.go:35:17)",
			"give the duration a name the census can fold (a constant, or a config field with a default) or declare its production value in .retryvet.yml"},
		{"example.com/t/search.(*Index).Refresh", "cases.Refresh", codeP99,
			"p99 unknown: no //retryvet:p99 on search.(*Index).Refresh or on the call it retries",
			"declare //retryvet:p99 on search.(*Index).Refresh or set it in .retryvet.yml"},
		{"example.com/t/llm.(*Client).Complete", "queue.(*Recorder).Complete", codeFromCaller,
			"the context is a parameter of queue.(*Recorder).Complete, and nothing in the analysed packages calls it",
			"name the packages that call queue.(*Recorder).Complete on the command line (retryvet census ./...); callers outside the module should be told the deadline it needs"},
		{"example.com/t/llm.(*Client).Complete", "llm.TestCompleteShortDeadline", codeTestNoRetry,
			"the test's deadline 5s is below the 72s the retry needs: the test cannot observe the retry (it passes whether or not the code waits)",
			"give the test a long deadline and a watchdog that fails early"},
	} {
		r := rowOf(t, pipeline(t, c, tc.pipeline), tc.entry)
		var found bool
		for _, rs := range r.Reasons {
			if rs.Code == tc.code {
				found = true
				if rs.Text != tc.text || rs.Suggestion != tc.suggestion {
					t.Errorf("%s reason:\n got  %q; %q\n want %q; %q", tc.entry, rs.Text, rs.Suggestion, tc.text, tc.suggestion)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %q reason in %+v", tc.entry, tc.code, r.Reasons)
		}
	}
	// The Unfoldable row's two unknown verdicts share one reason.
	if rs := rowOf(t, llm, "cases.Unfoldable").Reasons; len(rs) != 1 || strings.Join(rs[0].About, ",") != "retryCanStart,coversP99" {
		t.Errorf("Unfoldable reasons: %+v", rs)
	}
	// Decided rows carry no reason; every unknown verdict has one with a
	// suggestion.
	for _, p := range c.Pipelines {
		for _, r := range p.Callers {
			unknown := r.CanStart == retrymodel.Unknown && p.Req.Retry || r.P99 == retrymodel.Unknown
			if !unknown && !r.isTest() && len(r.Reasons) > 0 {
				t.Errorf("%s: decided row with reasons %+v", short(r.Entry), r.Reasons)
			}
			if unknown && (len(r.Reasons) == 0 || r.Reasons[0].Suggestion == "") {
				t.Errorf("%s -> %s: unknown verdict without a reason and a suggestion: %+v", short(r.Entry), short(p.Function), r.Reasons)
			}
		}
	}
}

// TestSummary: the counts at the top, in text, markdown and JSON.
func TestSummaryCounts(t *testing.T) {
	c := theCensus(t)
	s := Summarize(c)
	if s.Pipelines != 4 || s.Paths != 22 || s.TestPaths != 2 {
		t.Errorf("summary %+v, want 4 pipelines, 22 paths, 2 test paths", s)
	}
	if s.Decided.Yes+s.Decided.No+s.Decided.Unknown != s.Paths || s.CanStart.Yes+s.CanStart.No+s.CanStart.Unknown != s.Paths {
		t.Errorf("counts do not add up: %+v", s)
	}
	want := []ReasonCount{{codeUnfolded, 1}, {codeP99, 1}}
	if len(s.Unknown) != len(want) || s.Unknown[0] != want[0] || s.Unknown[1] != want[1] {
		t.Errorf("unknown reasons %+v, want %+v", s.Unknown, want)
	}
	var text, md, js bytes.Buffer
	WriteText(&text, c)
	WriteMarkdown(&md, c)
	WriteJSON(&js, c)
	for _, w := range []string{"census: 4 pipelines, 22 entry paths (and 2 test paths, apart)", "census: unknown because: deadline not a constant (1), p99 unknown (1)"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q", w)
		}
	}
	if !strings.Contains(md.String(), "- unknown because: deadline not a constant (1), p99 unknown (1)\n") {
		t.Errorf("markdown lacks the summary:\n%s", md.String()[:min(md.Len(), 800)])
	}
	var doc struct {
		Summary struct {
			Pipelines, Paths, TestPaths int
			Decided                     map[string]int
			UnknownReasons              []struct {
				Reason string
				Count  int
			}
		}
		Pipelines []struct {
			Function string
			Tests    struct {
				Entries          int
				ShortestDeadline *string
				ShortestEntry    *string
				BelowRequired    int
			}
			Callers []struct {
				Entry, DeadlinePlace, Decided string
				PathPositions                 []string
				Path                          []string
				Test                          bool
				Reasons                       []struct{ About []string }
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Summary.Paths != 22 || doc.Summary.TestPaths != 2 || len(doc.Summary.UnknownReasons) != 2 || doc.Summary.UnknownReasons[0].Reason != codeUnfolded {
		t.Errorf("json summary %+v", doc.Summary)
	}
	for _, p := range doc.Pipelines {
		if p.Function != "example.com/t/llm.(*Client).Complete" {
			continue
		}
		if p.Tests.Entries != 2 || p.Tests.BelowRequired != 1 || p.Tests.ShortestDeadline == nil || *p.Tests.ShortestDeadline != "5s" {
			t.Errorf("json tests %+v", p.Tests)
		}
		for _, cl := range p.Callers {
			if len(cl.PathPositions) != len(cl.Path) {
				t.Errorf("%s: %d positions for %d steps", cl.Entry, len(cl.PathPositions), len(cl.Path))
			}
			switch cl.Entry {
			case "example.com/t/queue.(*Worker).Run":
				if cl.DeadlinePlace != "queue.(*Worker).handle: context.WithTimeout(context.Background(), ItemTimeout)" || cl.Decided != "no" || cl.PathPositions[1] != "queue/worker.go:28:18" {
					t.Errorf("queue row: %+v", cl)
				}
			case "example.com/t/queue.(*Recorder).Complete":
				if !cl.Test || cl.DeadlinePlace != "from caller" || len(cl.Reasons) == 0 {
					t.Errorf("mock row: %+v", cl)
				}
			}
		}
	}
}
