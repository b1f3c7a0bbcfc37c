package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// report prints the table, then the unjudged findings, the defects not
// found, and the repositories skipped or failed.
func report(w io.Writer, ms []*match, skipped, failed []string) {
	t := tally(ms)
	names := append([]string(nil), analyzerNames...)
	for a := range t {
		if a != "" && !validAnalyzer(a) {
			names = append(names, a)
		}
	}
	fmt.Fprintf(w, "repositories analysed: %d, skipped: %d, failed: %d\n\n", len(ms), len(skipped), len(failed))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "analyzer\tfindings\tfound\tdefects+missed\trecall\tprecision\tfine\tunjudged\t")
	line := func(name string, m *metrics) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t\n", name, m.Findings, m.Found, m.Positives,
			ratio(m.Recall()), ratio(m.Precision()), m.Fine, m.Unjudged)
	}
	for _, a := range names {
		line(a, t[a])
	}
	line("total", t[""])
	tw.Flush()

	var unjudged, notFound []string
	for _, m := range ms {
		for _, f := range m.Unjudged {
			unjudged = append(unjudged, fmt.Sprintf("%s\t%s\t%s:%d\t%s", m.Repo.Key(), f.Analyzer, f.File, f.Line, f.Message))
		}
		for _, r := range m.NotFound {
			notFound = append(notFound, fmt.Sprintf("%s\t%s\t%s:%d\t%s\t%s", m.Repo.Key(), r.Analyzer, r.File, r.Line, r.Verdict, r.Reason))
		}
	}
	section(w, "unjudged findings (repo, analyzer, file:line, message)", unjudged)
	section(w, "defects not found (repo, analyzer, file:line, verdict, reason)", notFound)
	section(w, "skipped", skipped)
	section(w, "failed", failed)
}

func section(w io.Writer, title string, lines []string) {
	fmt.Fprintf(w, "\n%s: %d\n", title, len(lines))
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(l, "\n", " "))
	}
}

func ratio(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}
