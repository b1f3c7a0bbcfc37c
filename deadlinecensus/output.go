package deadlinecensus

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/retryvet/retryvet/internal/deadline"
)

// WriteOptions choose what the census prints.
type WriteOptions struct {
	// Tests lists test entries row by row; without it, text, markdown and
	// HTML give each pipeline's tests one line. JSON always lists them.
	Tests bool

	// gate is the baseline gate's outcome (nil without -baseline) and
	// baseline its file: the HTML page shows the verdict, each row's
	// reason and what to do on a failing row.
	gate     *gateResult
	baseline string
}

// Formats are the census's -format values.
var Formats = []string{"text", "markdown", "json", "html"}

// Write prints the census in format (one of Formats).
func Write(w io.Writer, c *Census, format string, opts WriteOptions) error {
	switch format {
	case "json":
		return WriteJSON(w, c)
	case "markdown":
		return writeMarkdown(w, c, opts)
	case "html":
		return WriteHTML(w, c, opts)
	case "text":
		return writeText(w, c, opts)
	}
	return fmt.Errorf("unknown format %q", format)
}

// The JSON shape of DESIGN.md, with additions.
type jsonCensus struct {
	Summary   jsonSummary    `json:"summary"`
	Limits    jsonLimits     `json:"limits"`
	Pipelines []jsonPipeline `json:"pipelines"`
	Truncated []string       `json:"truncated,omitempty"`
}

type jsonSummary struct {
	Pipelines          int           `json:"pipelines"`
	Paths              int           `json:"paths"`
	TestPaths          int           `json:"testPaths"`
	TruncatedPipelines int           `json:"truncatedPipelines"`
	RetryCanStart      jsonCounts    `json:"retryCanStart"`
	CoversP99          jsonCounts    `json:"coversP99"`
	Decided            jsonCounts    `json:"decided"`
	UnknownReasons     []jsonReasonN `json:"unknownReasons"`
}

type jsonCounts struct {
	Yes     int `json:"yes"`
	No      int `json:"no"`
	Unknown int `json:"unknown"`
}

type jsonReasonN struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
}

type jsonLimits struct {
	Rows  int `json:"rows"`
	Steps int `json:"steps"`
	Depth int `json:"depth"`
}

type jsonPipeline struct {
	Function  string         `json:"function"`
	Position  string         `json:"position"`
	Policy    jsonPolicy     `json:"policy"`
	Callers   []jsonCaller   `json:"callers"`
	Tests     jsonTests      `json:"tests"`
	Truncated *jsonTruncated `json:"truncated,omitempty"`
}

type jsonTests struct {
	Entries                 int      `json:"entries"`
	ShortestDeadline        *string  `json:"shortestDeadline"`
	ShortestDeadlineSeconds *float64 `json:"shortestDeadlineSeconds"`
	ShortestEntry           *string  `json:"shortestEntry"`
	BelowRequired           int      `json:"belowRequired"`
}

type jsonTruncated struct {
	RowsKept int        `json:"rowsKept"`
	Limit    string     `json:"limit"`
	Limits   jsonLimits `json:"limits"`
}

type jsonPolicy struct {
	Waits           []string `json:"waits"`
	WaitsUpTo       []string `json:"waitsUpTo,omitempty"` // the most each wait can be when jitter spreads it
	Reserve         *string  `json:"reserve"`
	RequiredSeconds *float64 `json:"requiredSeconds"`
	RequiredAtLeast bool     `json:"requiredAtLeast,omitempty"`
	P99Seconds      *float64 `json:"p99Seconds"`
	Derivation      string   `json:"derivation"`
}

type jsonCaller struct {
	Entry           string       `json:"entry"`
	Kind            string       `json:"kind"`
	Path            []string     `json:"path"`
	PathPositions   []string     `json:"pathPositions"`
	Deadline        string       `json:"deadline"`
	DeadlineSeconds *float64     `json:"deadlineSeconds"`
	DeadlineSource  string       `json:"deadlineSource"`
	DeadlinePlace   string       `json:"deadlinePlace"`
	RetryCanStart   string       `json:"retryCanStart"`
	CoversP99       string       `json:"coversP99"`
	Decided         string       `json:"decided"`
	Test            bool         `json:"test,omitempty"`
	Note            string       `json:"note,omitempty"`
	Reasons         []jsonReason `json:"reasons,omitempty"`
}

type jsonReason struct {
	About      []string `json:"about"`
	Code       string   `json:"code"`
	Reason     string   `json:"reason"`
	Suggestion string   `json:"suggestion,omitempty"`
}

func seconds(d time.Duration) *float64 {
	s := d.Seconds()
	return &s
}

func counts(c Counts) jsonCounts { return jsonCounts{c.Yes, c.No, c.Unknown} }

func limitsJSON(l Limits) jsonLimits { return jsonLimits{l.Rows, l.Steps, l.Depth} }

// WriteJSON prints the census in the DESIGN.md shape.
func WriteJSON(w io.Writer, c *Census) error {
	sum := Summarize(c)
	out := jsonCensus{Pipelines: []jsonPipeline{}, Truncated: c.Truncated, Limits: limitsJSON(c.Limits)}
	out.Summary = jsonSummary{
		Pipelines: sum.Pipelines, Paths: sum.Paths, TestPaths: sum.TestPaths, TruncatedPipelines: sum.Truncated,
		RetryCanStart: counts(sum.CanStart), CoversP99: counts(sum.CoversP99), Decided: counts(sum.Decided),
		UnknownReasons: []jsonReasonN{},
	}
	for _, rc := range sum.Unknown {
		out.Summary.UnknownReasons = append(out.Summary.UnknownReasons, jsonReasonN{rc.Code, rc.Count})
	}
	for _, p := range c.Pipelines {
		jp := jsonPipeline{Function: p.Function, Position: p.Position, Callers: []jsonCaller{}}
		r := p.Req
		jp.Policy.Waits = []string{}
		for _, w := range r.Waits {
			jp.Policy.Waits = append(jp.Policy.Waits, deadline.Format(w))
		}
		for _, w := range r.WaitsUpTo {
			jp.Policy.WaitsUpTo = append(jp.Policy.WaitsUpTo, deadline.Format(w))
		}
		if r.ReserveKnown {
			s := deadline.Format(r.Reserve)
			jp.Policy.Reserve = &s
		}
		if r.Retry && r.Known {
			jp.Policy.RequiredSeconds = seconds(r.Required)
			jp.Policy.RequiredAtLeast = r.AtLeast
		}
		if r.P99 > 0 {
			jp.Policy.P99Seconds = seconds(r.P99)
		}
		jp.Policy.Derivation = r.Derivation
		for _, row := range p.Callers {
			jc := jsonCaller{
				Entry:          row.Entry,
				Kind:           row.Kind,
				Path:           row.Path,
				PathPositions:  row.PathPos,
				Deadline:       row.D.String(),
				DeadlineSource: row.Source,
				DeadlinePlace:  row.Place,
				RetryCanStart:  row.CanStart.String(),
				CoversP99:      row.P99.String(),
				Decided:        decided(p, row).String(),
				Test:           row.isTest(),
				Note:           row.Note,
			}
			if jc.PathPositions == nil {
				jc.PathPositions = []string{}
			}
			if row.D.Kind == deadline.Known {
				jc.DeadlineSeconds = seconds(row.D.D)
			}
			for _, rs := range row.Reasons {
				jc.Reasons = append(jc.Reasons, jsonReason{About: rs.About, Code: rs.Code, Reason: rs.Text, Suggestion: rs.Suggestion})
			}
			jp.Callers = append(jp.Callers, jc)
		}
		ts := testSummary(p)
		jp.Tests = jsonTests{Entries: ts.Entries, BelowRequired: ts.BelowNeed}
		if ts.Shortest != nil {
			d, e := ts.Shortest.D.String(), ts.Shortest.Entry
			jp.Tests.ShortestDeadline, jp.Tests.ShortestEntry = &d, &e
			jp.Tests.ShortestDeadlineSeconds = seconds(ts.Shortest.D.D)
		}
		if t := p.Truncated; t != nil {
			jp.Truncated = &jsonTruncated{RowsKept: t.RowsKept, Limit: t.Limit, Limits: limitsJSON(t.Limits)}
		}
		out.Pipelines = append(out.Pipelines, jp)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// short drops the module path from a function name for tables: the part
// after the last slash (llm.(*Client).Complete).
func short(name string) string {
	// The package path ends at the last slash before the first '.' that
	// follows it.
	if i := strings.LastIndex(name[:firstDotAfterSlash(name)], "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}

func firstDotAfterSlash(name string) int {
	slash := strings.LastIndex(name, "/")
	if j := strings.IndexByte(name[slash+1:], '.'); j >= 0 {
		return slash + 1 + j
	}
	return len(name)
}

func shortPath(path []string) string {
	var s []string
	for _, p := range path {
		s = append(s, short(p))
	}
	return strings.Join(s, " -> ")
}

func deadlineCell(r *Row) string {
	if r.D.Kind == deadline.None && r.Kind == "main" {
		return "none (unbounded)"
	}
	if r.D.Kind == deadline.None {
		return "none"
	}
	return r.D.String()
}

func policyLine(r deadline.Requirement) string {
	var parts []string
	if len(r.Waits) > 0 {
		parts = append(parts, "waits "+r.WaitsString())
	}
	if r.ReserveKnown {
		parts = append(parts, "reserve "+deadline.Format(r.Reserve))
	}
	if r.Retry {
		parts = append(parts, "needs "+r.RequiredString()+" left for the first retry")
	}
	if r.P99 > 0 {
		parts = append(parts, "p99 "+deadline.Format(r.P99))
	}
	return strings.Join(parts, "; ")
}

// WriteText prints the census for a terminal, tests summarised.
func WriteText(w io.Writer, c *Census) error { return writeText(w, c, WriteOptions{}) }

// WriteMarkdown prints the census for a CI summary, tests summarised.
func WriteMarkdown(w io.Writer, c *Census) error { return writeMarkdown(w, c, WriteOptions{}) }

// summaryLines renders the summary: the counts, then the most common
// reasons for unknown.
func summaryLines(s Summary) []string {
	cnt := func(c Counts) string { return fmt.Sprintf("yes %d, no %d, unknown %d", c.Yes, c.No, c.Unknown) }
	lines := []string{
		fmt.Sprintf("%d pipelines, %d entry paths (and %d test paths, apart)", s.Pipelines, s.Paths, s.TestPaths),
		"decided:         " + cnt(s.Decided),
		"retry can start: " + cnt(s.CanStart),
		"covers p99:      " + cnt(s.CoversP99),
	}
	if len(s.Unknown) > 0 {
		var parts []string
		for i, rc := range s.Unknown {
			if i == 5 {
				parts = append(parts, fmt.Sprintf("%d more", len(s.Unknown)-5))
				break
			}
			parts = append(parts, fmt.Sprintf("%s (%d)", rc.Code, rc.Count))
		}
		lines = append(lines, "unknown because: "+strings.Join(parts, ", "))
	}
	if s.Truncated > 0 {
		lines = append(lines, fmt.Sprintf("truncated:       %d pipelines hit a limit (their shortest paths are listed)", s.Truncated))
	}
	return lines
}

// testsLine gives a pipeline's tests in one line.
func testsLine(pl *Pipeline) string {
	ts := testSummary(pl)
	if ts.Entries == 0 {
		return ""
	}
	s := fmt.Sprintf("%d test entry paths", ts.Entries)
	if ts.Entries == 1 {
		s = "1 test entry path"
	}
	if ts.Shortest != nil {
		s += fmt.Sprintf(", shortest deadline %s (%s)", ts.Shortest.D.String(), short(ts.Shortest.Entry))
	}
	if ts.BelowNeed > 0 {
		s += fmt.Sprintf("; %d below what the retry needs: such a test cannot observe the retry (it passes whether or not the code waits); give it a long deadline and a watchdog that fails early", ts.BelowNeed)
	}
	return s + " (-tests lists them)"
}

// truncLine says a pipeline's walk hit a limit and what was kept.
func truncLine(t *Truncation) string {
	flag := map[string]string{"rows": "-max-rows", "steps": "-max-steps", "depth": "-max-depth"}[t.Limit]
	return fmt.Sprintf("truncated: the walk hit its %s limit (%s); the %d entry paths kept are the shortest, ties in name order; raise it with %s",
		t.Limit, t.Limits, t.RowsKept, flag)
}

// reasonLine renders a reason for text and markdown.
func reasonLine(rs Reason) string {
	s := rs.Text
	switch {
	case rs.Suggestion == "":
	case rs.Code == codeTestNoRetry:
		s += "; " + rs.Suggestion
	default:
		s += "; to decide it: " + rs.Suggestion
	}
	return s
}

func writeText(w io.Writer, c *Census, opts WriteOptions) error {
	for _, l := range summaryLines(Summarize(c)) {
		fmt.Fprintln(w, "census: "+l)
	}
	if len(c.Pipelines) == 0 {
		fmt.Fprintln(w, "no pipelines found (no retried remote call, no //retryvet:pipeline)")
	}
	for _, p := range c.Pipelines {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "pipeline %s (%s)\n", p.Function, p.Position)
		fmt.Fprintf(w, "  policy:  %s\n", policyLine(p.Req))
		fmt.Fprintf(w, "  derived: %s\n", p.Req.Derivation)
		prod, tests := split(p.Callers)
		if len(prod) == 0 && len(tests) == 0 {
			fmt.Fprintln(w, "  no callers found in the analysed packages")
			continue
		}
		table := func(rows []*Row) {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  ENTRY\tKIND\tDEADLINE\tSET AT\tRETRY CAN START\tCOVERS P99\tPATH")
			for _, r := range rows {
				src := r.Source
				if src == "" {
					src = "-"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", short(r.Entry), r.Kind, deadlineCell(r), src, r.CanStart, r.P99, shortPath(r.Path))
			}
			tw.Flush()
			for _, r := range rows {
				if r.noteShown() {
					fmt.Fprintf(w, "    %s: %s\n", short(r.Entry), r.Note)
				}
				for _, rs := range r.Reasons {
					fmt.Fprintf(w, "    %s: %s\n", short(r.Entry), reasonLine(rs))
				}
			}
		}
		if len(prod) > 0 {
			table(prod)
		}
		if len(tests) > 0 {
			if opts.Tests {
				fmt.Fprintln(w, "  tests (a test whose deadline is below the need cannot observe the retry):")
				table(tests)
			} else {
				fmt.Fprintln(w, "  tests: "+testsLine(p))
			}
		}
		if p.Truncated != nil {
			fmt.Fprintln(w, "  "+truncLine(p.Truncated))
		}
	}
	return nil
}

func split(rows []*Row) (prod, tests []*Row) {
	for _, r := range rows {
		if r.isTest() {
			tests = append(tests, r)
		} else {
			prod = append(prod, r)
		}
	}
	return prod, tests
}

func writeMarkdown(w io.Writer, c *Census, opts WriteOptions) error {
	fmt.Fprintln(w, "## Deadline census")
	fmt.Fprintln(w)
	esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	sum := Summarize(c)
	for _, l := range summaryLines(sum) {
		fmt.Fprintf(w, "- %s\n", esc(strings.Join(strings.Fields(l), " ")))
	}
	fmt.Fprintln(w)
	if len(c.Pipelines) == 0 {
		fmt.Fprintln(w, "No pipelines found.")
	}
	for _, p := range c.Pipelines {
		fmt.Fprintf(w, "### `%s`\n\n", p.Function)
		fmt.Fprintf(w, "- position: `%s`\n- policy: %s\n- derived: %s\n", p.Position, esc(policyLine(p.Req)), esc(p.Req.Derivation))
		if p.Truncated != nil {
			fmt.Fprintf(w, "- **%s**\n", esc(truncLine(p.Truncated)))
		}
		fmt.Fprintln(w)
		prod, tests := split(p.Callers)
		table := func(rows []*Row) {
			fmt.Fprintln(w, "| entry | kind | deadline | set at | retry can start | covers p99 | path | why unknown |")
			fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- |")
			for _, r := range rows {
				var why []string
				for _, rs := range r.Reasons {
					why = append(why, reasonLine(rs))
				}
				fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", short(r.Entry), r.Kind, deadlineCell(r), r.Source, mark(r.CanStart.String()), mark(r.P99.String()), esc(shortPath(r.Path)), esc(strings.Join(why, "<br>")))
			}
			fmt.Fprintln(w)
		}
		if len(prod) > 0 {
			table(prod)
		} else if len(tests) == 0 {
			fmt.Fprintln(w, "No callers found.")
			fmt.Fprintln(w)
		}
		if len(tests) > 0 {
			if opts.Tests {
				fmt.Fprintln(w, "Tests:")
				fmt.Fprintln(w)
				table(tests)
			} else {
				fmt.Fprintf(w, "Tests: %s\n\n", esc(testsLine(p)))
			}
		}
	}
	return nil
}

func mark(s string) string {
	if s == "no" {
		return "**no**"
	}
	return s
}
