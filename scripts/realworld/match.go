package main

// missedSlack is how far a finding may be from a missed row's line and still
// match it: where a missed defect should be reported is a judgement.
const missedSlack = 2

// A match pairs one repository's findings with its rows.
type match struct {
	Repo      *judgedRepo
	Found     map[int][]finding // row index -> findings that matched it
	Unjudged  []finding
	NotFound  []row // defect and missed rows that no finding matched
	Fine      []row // fine rows matched by a finding
	FoundRows []row // defect and missed rows matched by a finding
}

// matchFindings matches every finding to at most one row: a row of the same
// analyzer and file on the same line (any verdict) first, else the nearest
// missed row within missedSlack lines.
func matchFindings(j *judgedRepo, fs []finding) *match {
	m := &match{Repo: j, Found: map[int][]finding{}}
	for _, f := range fs {
		best, bestDist := -1, missedSlack+1
		for i, r := range j.Rows {
			if r.Analyzer != f.Analyzer || r.File != f.File {
				continue
			}
			d := r.Line - f.Line
			if d < 0 {
				d = -d
			}
			if d == 0 {
				best, bestDist = i, 0
				break
			}
			if r.Verdict == verdictMissed && d < bestDist {
				best, bestDist = i, d
			}
		}
		if best < 0 {
			m.Unjudged = append(m.Unjudged, f)
			continue
		}
		m.Found[best] = append(m.Found[best], f)
	}
	for i, r := range j.Rows {
		_, hit := m.Found[i]
		switch {
		case r.Verdict == verdictFine && hit:
			m.Fine = append(m.Fine, r)
		case r.Verdict != verdictFine && hit:
			m.FoundRows = append(m.FoundRows, r)
		case r.Verdict != verdictFine:
			m.NotFound = append(m.NotFound, r)
		}
	}
	return m
}

// metrics are the counts of one analyzer (or the total) over the repositories analysed.
type metrics struct {
	Findings  int // distinct findings
	Found     int // defect and missed rows matched by a finding
	Positives int // all defect and missed rows
	Fine      int // fine rows matched by a finding
	Unjudged  int // findings that matched no row
}

// Recall is found / positives; ok is false when there are no positives.
func (m metrics) Recall() (float64, bool) {
	if m.Positives == 0 {
		return 0, false
	}
	return float64(m.Found) / float64(m.Positives), true
}

// Precision is found / (found + fine), counting rows, so several findings on
// one row count once; ok is false when no judged row was reported.
func (m metrics) Precision() (float64, bool) {
	if m.Found+m.Fine == 0 {
		return 0, false
	}
	return float64(m.Found) / float64(m.Found+m.Fine), true
}

// tally sums matches per analyzer; the total is under "".
func tally(ms []*match) map[string]*metrics {
	out := map[string]*metrics{"": {}}
	for _, a := range analyzerNames {
		out[a] = &metrics{}
	}
	get := func(a string) *metrics {
		if out[a] == nil {
			out[a] = &metrics{} // an analyzer this harness does not know yet
		}
		return out[a]
	}
	for _, m := range ms {
		for _, fs := range m.Found {
			for _, f := range fs {
				get(f.Analyzer).Findings++
				out[""].Findings++
			}
		}
		for _, f := range m.Unjudged {
			get(f.Analyzer).Findings++
			get(f.Analyzer).Unjudged++
			out[""].Findings++
			out[""].Unjudged++
		}
		for _, r := range m.Repo.Rows {
			if r.Verdict != verdictFine {
				get(r.Analyzer).Positives++
				out[""].Positives++
			}
		}
		for _, r := range m.FoundRows {
			get(r.Analyzer).Found++
			out[""].Found++
		}
		for _, r := range m.Fine {
			get(r.Analyzer).Fine++
			out[""].Fine++
		}
	}
	return out
}
