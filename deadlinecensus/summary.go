package deadlinecensus

import (
	"cmp"
	"slices"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Summary is the census in numbers: production entry paths (tests apart),
// their verdicts, and why the undecided ones are undecided.
type Summary struct {
	Pipelines int
	Paths     int // production entry paths
	TestPaths int
	Truncated int // pipelines whose walk hit a limit
	CanStart  Counts
	CoversP99 Counts
	Decided   Counts // no if either verdict is no, yes if both are yes (or the p99 alone, without a retry)
	Unknown   []ReasonCount
}

// Counts of yes, no and unknown.
type Counts struct{ Yes, No, Unknown int }

func (c *Counts) add(t retrymodel.Tri) {
	switch t {
	case retrymodel.Yes:
		c.Yes++
	case retrymodel.No:
		c.No++
	default:
		c.Unknown++
	}
}

// ReasonCount is how many undecided production paths give a reason.
type ReasonCount struct {
	Code  string
	Count int
}

// decided is a row's overall verdict.
func decided(pl *Pipeline, r *Row) retrymodel.Tri {
	switch {
	case r.CanStart == retrymodel.No || r.P99 == retrymodel.No:
		return retrymodel.No
	case r.P99 == retrymodel.Yes && (r.CanStart == retrymodel.Yes || !pl.Req.Retry):
		return retrymodel.Yes
	}
	return retrymodel.Unknown
}

// Summarize counts the census.
func Summarize(c *Census) Summary {
	s := Summary{Pipelines: len(c.Pipelines)}
	reasons := map[string]int{}
	for _, pl := range c.Pipelines {
		if pl.Truncated != nil {
			s.Truncated++
		}
		for _, r := range pl.Callers {
			if r.isTest() {
				s.TestPaths++
				continue
			}
			s.Paths++
			s.CanStart.add(r.CanStart)
			s.CoversP99.add(r.P99)
			v := decided(pl, r)
			s.Decided.add(v)
			if v != retrymodel.Unknown {
				continue
			}
			seen := map[string]bool{}
			for _, rs := range r.Reasons {
				if rs.Code != codeTestNoRetry && !seen[rs.Code] {
					seen[rs.Code] = true
					reasons[rs.Code]++
				}
			}
		}
	}
	for code, n := range reasons {
		s.Unknown = append(s.Unknown, ReasonCount{code, n})
	}
	slices.SortFunc(s.Unknown, func(a, b ReasonCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Code, b.Code)
	})
	return s
}

// TestEntries is a pipeline's test entries in one line.
type TestEntries struct {
	Entries   int
	Shortest  *Row // the test with the shortest known deadline, nil if none is known
	BelowNeed int  // tests whose deadline is below what the retry needs
}

func testSummary(pl *Pipeline) TestEntries {
	var ts TestEntries
	for _, r := range pl.Callers {
		if !r.isTest() {
			continue
		}
		ts.Entries++
		if r.CanStart == retrymodel.No {
			ts.BelowNeed++
		}
		if r.D.Kind == deadline.Known && (ts.Shortest == nil || r.D.D < ts.Shortest.D.D) {
			ts.Shortest = r
		}
	}
	return ts
}
