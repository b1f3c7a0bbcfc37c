package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestMatchAndMetrics(t *testing.T) {
	j, err := parseJudged("acme_llm.tsv", strings.NewReader(goodTSV))
	if err != nil {
		t.Fatal(err)
	}
	findings := []finding{
		{Analyzer: "retrytimeout", File: "sdk/client/do.go", Line: 40, Col: 3, Message: "sleep ignores ctx"},
		{Analyzer: "retrytimeout", File: "sdk/client/do.go", Line: 40, Col: 9, Message: "no jitter"}, // same row: counts once
		{Analyzer: "retrystatus", File: "sdk/client/do.go", Line: 52, Message: "every 429"},          // a fine row
		{Analyzer: "doubleretry", File: "sdk/internal/retry/retry.go", Line: 12, Message: "nested"},  // missed row, within 2 lines
		{Analyzer: "retrystatus", File: "sdk/client/do.go", Line: 53, Message: "off by one"},         // fine rows need the exact line
		{Analyzer: "expiredctx", File: "sdk/client/do.go", Line: 40, Message: "other analyzer"},
	}
	m := matchFindings(j, findings)
	if len(m.Unjudged) != 2 || m.Unjudged[0].Line != 53 || m.Unjudged[1].Analyzer != "expiredctx" {
		t.Errorf("unjudged = %+v", m.Unjudged)
	}
	if len(m.NotFound) != 0 || len(m.FoundRows) != 2 || len(m.Fine) != 1 {
		t.Errorf("not found %v, found %v, fine %v", m.NotFound, m.FoundRows, m.Fine)
	}
	tl := tally([]*match{m})
	check := func(name string, got metrics, want metrics) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	check("retrytimeout", *tl["retrytimeout"], metrics{Findings: 2, Found: 1, Positives: 1})
	check("retrystatus", *tl["retrystatus"], metrics{Findings: 2, Fine: 1, Unjudged: 1})
	check("doubleretry", *tl["doubleretry"], metrics{Findings: 1, Found: 1, Positives: 1})
	check("total", *tl[""], metrics{Findings: 6, Found: 2, Positives: 2, Fine: 1, Unjudged: 2})
	if r, ok := tl[""].Recall(); !ok || r != 1 {
		t.Errorf("recall = %v %v", r, ok)
	}
	if p, ok := tl[""].Precision(); !ok || p != 2.0/3 {
		t.Errorf("precision = %v %v", p, ok)
	}
	if _, ok := tl["deadlinecensus"].Precision(); ok {
		t.Error("precision of an analyzer with no judged findings should be undefined")
	}

	// A missed row 3 lines away is not found; a defect row is listed as not found.
	m = matchFindings(j, []finding{{Analyzer: "doubleretry", File: "sdk/internal/retry/retry.go", Line: 13}})
	if len(m.NotFound) != 2 || len(m.Unjudged) != 1 {
		t.Errorf("not found %v, unjudged %v", m.NotFound, m.Unjudged)
	}
	var out bytes.Buffer
	report(&out, []*match{m}, []string{"other_repo: no checkout at /x"}, nil)
	for _, want := range []string{
		"repositories analysed: 1, skipped: 1, failed: 0",
		"unjudged findings (repo, analyzer, file:line, message): 1\n  acme_llm\tdoubleretry\tsdk/internal/retry/retry.go:13\t",
		"defects not found (repo, analyzer, file:line, verdict, reason): 2\n",
		"acme_llm\tdoubleretry\tsdk/internal/retry/retry.go:10\tmissed\tthe SDK default retries under this loop",
		"skipped: 1\n  other_repo: no checkout at /x",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
