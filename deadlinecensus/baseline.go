package deadlinecensus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/retryvet/retryvet/internal/deadline"
)

// A baseline row: one reviewed (pipeline, entry, place where the deadline
// is set), with the shortest path that reaches it as information.
type baseRow struct {
	Pipeline, Entry, Place, Path string
	Required, P99, Deadline      string
	CanStart, CoversP99, Reason  string
	// Attempts and Schedule are the retry's total attempts and its
	// worst-case schedule (format 3; "" in a row of an older format, not
	// compared).
	Attempts, Schedule string
	line               int
	test               bool // an entry declared in a _test.go file (-gate-tests)
	legacy             bool // from a format 1 baseline: no place, matched by deadline
}

// key groups the candidates a census row is matched against.
func (b *baseRow) key() string { return b.Pipeline + "|" + b.Entry }

// baseFile is a parsed baseline file.
type baseFile struct {
	rows      map[string][]*baseRow
	format    int               // 1, 2 or 3 (baseVersion)
	legacy    bool              // format 1 (keyed by the whole path)
	limits    string            // the walk's limits it was written with ("" in format 1)
	skipped   int               // malformed lines a lenient parse (-update) skipped
	alien     bool              // no baseline header and no row: not a baseline at all
	truncated map[string]string // pipeline -> the truncation it was written with
}

const baselineHeader = `# retryvet census baseline: every production entry to every pipeline, one row
# per place where a deadline reaching the pipeline call is set, with the time
# its retry needs, its attempts and its worst-case schedule. The gate
# (retryvet census -baseline FILE) fails on an entry or deadline place not
# listed here, on a required time, attempts, schedule or deadline that
# differs from its row, and on a row whose retry cannot start (or whose
# deadline is below the p99) unless its last column gives the reason it is
# accepted. Rows are keyed by pipeline, entry and deadline place (closures
# are not numbered, lines are not counted); the path is information only.
# Regenerate with -update; edit only the reasons. Entries declared in
# _test.go files are gated only with -gate-tests (listed last).
`

// baseVersion is the format -update writes: 3 added the attempts and the
// worst-case schedule to format 2's rows.
const baseVersion = 3

var baseFormat = fmt.Sprintf("# format: %d", baseVersion)

var baseColumns = []string{"pipeline", "entry", "deadline set at", "required", "attempts", "schedule", "p99", "deadline", "retry can start", "covers p99", "path", "reason"}

// format2Columns are the columns of format 2, without attempts and schedule.
var format2Columns = []string{"pipeline", "entry", "deadline set at", "required", "p99", "deadline", "retry can start", "covers p99", "path", "reason"}

// legacyColumns are the columns of format 1, keyed by the whole path.
var legacyColumns = []string{"pipeline", "entry", "path", "required", "p99", "deadline", "retry can start", "covers p99", "reason"}

// triRank orders verdicts worst first, for merging rows of one key.
func triRank(s string) int {
	switch s {
	case "no":
		return 0
	case "unknown":
		return 1
	}
	return 2
}

// rowsOf turns the census into baseline rows, one per key, in a stable
// order: production entries, then (with gateTests) entries declared in
// _test.go files. Rows of one key keep the worst verdicts and the shortest
// path.
func rowsOf(c *Census, gateTests bool) []*baseRow {
	var out []*baseRow
	for _, p := range c.Pipelines {
		p99 := "-"
		if p.Req.P99 > 0 {
			p99 = deadline.Format(p.Req.P99)
		}
		byKey := map[string]*baseRow{}
		paths := map[*baseRow]int{}
		var order []*baseRow
		for _, r := range p.Callers {
			if r.isTest() && !gateTests {
				continue
			}
			b := &baseRow{
				Pipeline: p.Function, Entry: stableName(r.Entry), Place: r.Place, Path: shortPath(r.Path),
				Required: p.Req.RequiredString(), Attempts: attemptsCell(p.Req), Schedule: scheduleCell(p.Req),
				P99: p99, Deadline: r.D.String(),
				CanStart: r.CanStart.String(), CoversP99: r.P99.String(), test: r.isTest(),
			}
			k := b.key() + "|" + b.Place
			o := byKey[k]
			if o == nil {
				byKey[k] = b
				order = append(order, b)
				paths[b] = 1
				continue
			}
			paths[o]++
			if worse(b, o) {
				b.Path = o.Path
				*o = *b
			}
		}
		for _, b := range order {
			if n := paths[b]; n > 1 {
				b.Path += fmt.Sprintf(" (+%d more)", n-1)
			}
		}
		out = append(out, order...)
	}
	slices.SortStableFunc(out, func(a, b *baseRow) int {
		if a.test != b.test {
			if a.test {
				return 1
			}
			return -1
		}
		return strings.Compare(a.key()+"|"+a.Place, b.key()+"|"+b.Place)
	})
	return out
}

// worse reports whether b's verdicts are worse than o's (or equal, with a
// shorter path), so that b represents their key.
func worse(b, o *baseRow) bool {
	if c := triRank(b.CanStart) - triRank(o.CanStart); c != 0 {
		return c < 0
	}
	if c := triRank(b.CoversP99) - triRank(o.CoversP99); c != 0 {
		return c < 0
	}
	return false
}

// splitRow splits a baseline line into n cells at '|' not escaped with a
// backslash; the last cell (the reason) keeps the rest as written.
func splitRow(line string, n int) []string {
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		ch := line[i]
		if len(cells) == n-1 {
			cells = append(cells, line[i:])
			cur.Reset()
			return trimAll(cells)
		}
		switch {
		case ch == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case ch == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(ch)
		}
	}
	cells = append(cells, cur.String())
	return trimAll(cells)
}

func trimAll(cells []string) []string {
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func escCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// parseBaseline reads a baseline file, format 2 or (keyed by the whole
// path, before the place column) format 1. A malformed line is an error
// naming it; lenient (for -update) skips malformed lines instead.
func parseBaseline(name string, data []byte, lenient bool) (*baseFile, error) {
	base := &baseFile{rows: map[string][]*baseRow{}, format: 1, truncated: map[string]string{}}
	for i, l := range strings.Split(string(data), "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(l), "# format:")
		if !ok {
			continue
		}
		switch strings.TrimSpace(v) {
		case "2":
			base.format = 2
		case "3":
			base.format = 3
		default:
			return nil, fmt.Errorf("%s:%d: baseline format %s is not one this retryvet reads (1 to %d): it was written by a newer retryvet", name, i+1, strings.TrimSpace(v), baseVersion)
		}
	}
	base.legacy = base.format == 1
	cols := baseColumns
	switch base.format {
	case 1:
		cols = legacyColumns
	case 2:
		cols = format2Columns
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	test := false
	exact := map[string]*baseRow{}
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			switch meta := strings.TrimSpace(strings.TrimPrefix(line, "#")); {
			case strings.HasPrefix(meta, "limits:"):
				base.limits = strings.TrimSpace(strings.TrimPrefix(meta, "limits:"))
			case strings.HasPrefix(meta, "truncated:"):
				t := strings.TrimSpace(strings.TrimPrefix(meta, "truncated:"))
				if i := strings.Index(t, ": "); i > 0 {
					base.truncated[t[:i]] = t[i+2:]
				}
			case strings.HasPrefix(meta, "test entries"):
				test = true
			}
			continue
		}
		if line == "" {
			continue
		}
		f := splitRow(line, len(cols))
		if len(f) < len(cols)-1 {
			if lenient {
				base.skipped++
				continue
			}
			return nil, fmt.Errorf("%s:%d: malformed baseline row: want %d columns separated by '|' (%s), got %d",
				name, n, len(cols), strings.Join(cols, " | "), len(f))
		}
		if len(f) < len(cols) {
			f = append(f, "") // no reason
		}
		var b *baseRow
		switch base.format {
		case 1:
			b = &baseRow{Pipeline: f[0], Entry: stableName(f[1]), Path: f[2], Required: f[3], P99: f[4], Deadline: f[5],
				CanStart: f[6], CoversP99: f[7], Reason: f[8], legacy: true}
		case 2:
			b = &baseRow{Pipeline: f[0], Entry: f[1], Place: f[2], Required: f[3], P99: f[4], Deadline: f[5],
				CanStart: f[6], CoversP99: f[7], Path: f[8], Reason: f[9]}
		default:
			b = &baseRow{Pipeline: f[0], Entry: f[1], Place: f[2], Required: f[3], Attempts: f[4], Schedule: f[5], P99: f[6], Deadline: f[7],
				CanStart: f[8], CoversP99: f[9], Path: f[10], Reason: f[11]}
		}
		b.line, b.test = n, test
		var bad string
		switch {
		case b.Pipeline == "" || b.Entry == "":
			bad = "pipeline and entry must not be empty"
		case base.legacy && b.Path == "":
			bad = "path must not be empty"
		case !base.legacy && b.Place == "":
			bad = "deadline set at must not be empty (none, from caller, unknown: ..., or the function and call)"
		case !isTri(b.CanStart):
			bad = fmt.Sprintf("retry can start is %q, want yes, no or unknown", b.CanStart)
		case !isTri(b.CoversP99):
			bad = fmt.Sprintf("covers p99 is %q, want yes, no or unknown", b.CoversP99)
		case b.Deadline == "":
			bad = "deadline must not be empty"
		case base.format >= 3 && (b.Attempts == "" || b.Schedule == ""):
			bad = "attempts and schedule must not be empty (- when the pipeline does not retry)"
		}
		if bad != "" {
			if lenient {
				base.skipped++
				continue
			}
			return nil, fmt.Errorf("%s:%d: malformed baseline row: %s", name, n, bad)
		}
		if !base.legacy {
			k := b.key() + "|" + b.Place
			if o := exact[k]; o != nil {
				if lenient {
					continue
				}
				return nil, fmt.Errorf("%s:%d: duplicate baseline row (first at line %d)", name, n, o.line)
			}
			exact[k] = b
		}
		base.rows[b.key()] = append(base.rows[b.key()], b)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: not a census baseline: a line longer than 1 MiB", name, n+1)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	base.alien = len(bytes.TrimSpace(data)) > 0 && len(base.rows) == 0 && !bytes.Contains(data, []byte("# retryvet census baseline"))
	return base, nil
}

func isTri(s string) bool { return s == "yes" || s == "no" || s == "unknown" }

// match finds the baseline row for census row r and marks it (and, in a
// format 1 baseline, every row it stands for) seen.
func (base *baseFile) match(r *baseRow, seen map[*baseRow]bool) *baseRow {
	cands := base.rows[r.key()]
	for _, o := range cands {
		if !o.legacy && o.Place == r.Place && o.test == r.test {
			seen[o] = true
			return o
		}
	}
	// Format 1: the rows of the entry with the same deadline (their paths
	// differ); the first with a reason stands for them.
	var b *baseRow
	for _, o := range cands {
		if o.legacy && o.Deadline == r.Deadline {
			seen[o] = true
			if b == nil || b.Reason == "" && o.Reason != "" {
				b = o
			}
		}
	}
	return b
}

// gateResult is what the gate found: one message per failing row, notes
// on rows the baseline lists that are gone, and each census row's outcome
// (for the HTML page).
type gateResult struct {
	Rows     int // census rows compared
	Fails    []string
	Notes    []string
	Accepted int // rows that pass by their baseline reason
	// kinds counts the failing rows by what failed (new, changed, never
	// starts, below p99, cannot compare).
	kinds map[string]int
	byRow map[string]rowGate
}

// rowGate is one census row's outcome at the gate.
type rowGate struct {
	Line   int    // its baseline line, 0 when it is not in the baseline
	Reason string // the reason the baseline gives, "" when none
	Fail   string // why it fails, "" when it passes
	Todo   string // what to do about it
}

// rowKey keys a census row as the baseline does.
func rowKey(pipeline string, r *Row) string {
	return pipeline + "|" + stableName(r.Entry) + "|" + r.Place + "|" + fmt.Sprint(r.isTest())
}

func (b *baseRow) gateKey() string { return b.key() + "|" + b.Place + "|" + fmt.Sprint(b.test) }

// Row returns the outcome of census row r of pipeline, ok false when the
// row was not gated (a test entry without -gate-tests).
func (g *gateResult) Row(pipeline string, r *Row) (rowGate, bool) {
	if g == nil {
		return rowGate{}, false
	}
	rg, ok := g.byRow[rowKey(pipeline, r)]
	return rg, ok
}

// Passed reports whether the gate passed.
func (g *gateResult) Passed() bool { return len(g.Fails) == 0 }

// Verdict is the gate's last line: "gate: passed, 12 rows (2 accepted with
// a reason)" or "gate: failed, 2 of 12 rows (...): what to do".
func (g *gateResult) Verdict(file string) string {
	if g.Passed() {
		s := fmt.Sprintf("gate: passed, %d rows", g.Rows)
		if g.Accepted > 0 {
			s += fmt.Sprintf(" (%d accepted with a reason)", g.Accepted)
		}
		return s
	}
	var kinds []string
	for _, k := range []string{failCompare, failNew, failChanged, failNever, failP99} {
		if n := g.kinds[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
	}
	return fmt.Sprintf("gate: failed, %d of %d rows (%s): fix the deadlines, or accept a row by writing its reason in the last column of %s; after a reviewed change of policy or entries, regenerate it with -update",
		len(g.Fails), g.Rows, strings.Join(kinds, ", "), file)
}

// What failed, as the verdict counts it.
const (
	failCompare = "cannot compare"
	failNew     = "new"
	failChanged = "changed"
	failNever   = "retry can never start"
	failP99     = "below the p99"
)

// gate compares the census with the baseline and returns one message per
// failing row, and notes on rows the baseline lists that are gone.
func gate(c *Census, base *baseFile, gateTests bool) (fails, notes []string) {
	g := runGate(c, base, gateTests)
	return g.Fails, g.Notes
}

// runGate compares the census with the baseline. A truncated census is
// compared only with a baseline written with the same limits (the subset
// it keeps depends on them).
func runGate(c *Census, base *baseFile, gateTests bool) *gateResult {
	g := &gateResult{kinds: map[string]int{}, byRow: map[string]rowGate{}}
	fail := func(kind, msg string) {
		g.Fails = append(g.Fails, msg)
		g.kinds[kind]++
	}
	rows := rowsOf(c, gateTests)
	g.Rows = len(rows)
	for _, p := range c.Pipelines {
		if p.Truncated == nil || base.limits == c.Limits.String() {
			continue
		}
		was := "without a record of its limits"
		if base.limits != "" {
			was = "with limits " + base.limits
		}
		fail(failCompare, fmt.Sprintf("cannot compare: the census of %s was truncated (%s limit hit, %d entry paths kept, limits %s) but the baseline was written %s; regenerate it with -update and the same limits",
			p.Function, p.Truncated.Limit, p.Truncated.RowsKept, c.Limits, was))
	}
	if len(g.Fails) > 0 {
		return g
	}
	switch {
	case base.legacy && len(base.rows) > 0:
		g.Notes = append(g.Notes, fmt.Sprintf("the baseline is in format 1 (rows keyed by the whole path): its rows are matched by pipeline, entry and deadline, and their reasons kept; attempts and schedule are not compared; -update rewrites it in format %d (keyed by pipeline, entry and where the deadline is set, with attempts and schedule)", baseVersion))
	case base.format == 2 && len(base.rows) > 0:
		g.Notes = append(g.Notes, fmt.Sprintf("the baseline is in format 2 (no attempts or schedule): a change in the retry's attempts or schedule is not seen until -update rewrites it in format %d, keeping the reasons", baseVersion))
	}
	seen := map[*baseRow]bool{}
	for _, r := range rows {
		desc := fmt.Sprintf("%s -> %s (deadline %s, needs %s)", short(r.Entry), short(r.Pipeline), r.Deadline, r.Required)
		b := base.match(r, seen)
		if b == nil {
			msg := fmt.Sprintf("new entry path not in the baseline: %s; deadline set at %s; path %s", desc, r.Place, r.Path)
			fail(failNew, msg)
			g.byRow[r.gateKey()] = rowGate{Fail: msg, Todo: "review the new path, then add it with -update (and a reason if its verdict is no)"}
			continue
		}
		rg := rowGate{Line: b.line, Reason: b.Reason}
		if msg := changed(r, b, desc); msg != "" {
			fail(failChanged, msg)
			rg.Fail, rg.Todo = msg, "fix the code back, or review the change and regenerate the baseline with -update"
			g.byRow[r.gateKey()] = rg
			continue
		}
		switch {
		case b.Reason != "":
			if r.CanStart == "no" || r.CoversP99 == "no" {
				g.Accepted++
			}
		case r.CanStart == "no":
			rg.Fail = fmt.Sprintf("retry can never start: %s; fix the deadline or accept the row with a reason (baseline line %d)", desc, b.line)
			fail(failNever, rg.Fail)
		case r.CoversP99 == "no":
			rg.Fail = fmt.Sprintf("deadline below the p99: %s (p99 %s); fix the deadline or accept the row with a reason (baseline line %d)", desc, r.P99, b.line)
			fail(failP99, rg.Fail)
		}
		if rg.Fail != "" {
			rg.Todo = fmt.Sprintf("raise the deadline at %s to at least %s, or write why it is accepted in the last column of baseline line %d", r.Place, r.Required, b.line)
			if r.CanStart != "no" {
				rg.Todo = fmt.Sprintf("raise the deadline at %s to at least the p99 %s, or write why it is accepted in the last column of baseline line %d", r.Place, r.P99, b.line)
			}
		}
		g.byRow[r.gateKey()] = rg
	}
	var stale []*baseRow
	for _, rs := range base.rows {
		for _, b := range rs {
			if !seen[b] && (gateTests || !b.test) {
				stale = append(stale, b)
			}
		}
	}
	slices.SortFunc(stale, func(a, b *baseRow) int { return a.line - b.line })
	for _, b := range stale {
		g.Notes = append(g.Notes, fmt.Sprintf("baseline line %d lists a path the census no longer finds (%s -> %s): remove it with -update", b.line, short(b.Entry), short(b.Pipeline)))
	}
	return g
}

// changed says how census row r differs from its baseline row b, each
// change with its old and new value; "" when they agree. A retry that is
// gone (or new) is said so, not as a required time of "-".
func changed(r, b *baseRow, desc string) string {
	at := fmt.Sprintf("(baseline line %d)", b.line)
	switch {
	case r.Required == "-" && b.Required != "-":
		was := "needed " + b.Required
		if b.Attempts != "" {
			was = fmt.Sprintf("made %s attempts and needed %s", b.Attempts, b.Required)
		}
		return fmt.Sprintf("the retry is gone: %s no longer retries on %s -> %s (deadline %s) %s: it %s; review and regenerate the baseline with -update",
			short(r.Pipeline), short(r.Entry), short(r.Pipeline), r.Deadline, at, was)
	case r.Required != "-" && b.Required == "-":
		return fmt.Sprintf("a retry is new: %s retries now (%s attempts, needs %s) on %s -> %s (deadline %s) %s: it made a single attempt; review and regenerate the baseline with -update",
			short(r.Pipeline), r.Attempts, r.Required, short(r.Entry), short(r.Pipeline), r.Deadline, at)
	}
	var d []string
	diff := func(what, old, new string) {
		if old != new {
			d = append(d, fmt.Sprintf("%s %s -> %s", what, old, new))
		}
	}
	if b.Attempts != "" { // format 2 and 1 rows have none
		diff("attempts", b.Attempts, r.Attempts)
		diff("worst-case schedule", b.Schedule, r.Schedule)
	}
	diff("required time", b.Required, r.Required)
	diff("p99", b.P99, r.P99)
	diff("deadline", b.Deadline, r.Deadline)
	if len(d) == 0 {
		return ""
	}
	return fmt.Sprintf("policy or deadline changed since the baseline: %s: %s %s", desc, strings.Join(d, ", "), at)
}

// attemptsCell renders a retry's total attempts for a baseline row: "3",
// "unbounded", "unknown", "-" without a retry.
func attemptsCell(r deadline.Requirement) string {
	switch {
	case r.AttemptsKnown && r.Attempts > 0:
		return fmt.Sprint(r.Attempts)
	case !r.Retry:
		return "-"
	case r.Unbounded:
		return "unbounded"
	}
	return "unknown"
}

// scheduleCell renders a retry's worst-case schedule: the waits between
// its attempts and their sum, the attempts at their per-attempt timeout,
// and the cap on the elapsed time: "waits 7s, 11s = 18s",
// "waits 1s, 2s = 3s + 3 x 10s = 33s", "waits 1s, ... (unbounded)".
// A wait listed as at least its value says so.
func scheduleCell(r deadline.Requirement) string {
	if !r.Retry {
		return "-"
	}
	ws := r.Waits
	full := false
	if r.AttemptsKnown && r.Attempts > 0 {
		if n := int(r.Attempts - 1); len(ws) >= n {
			ws, full = ws[:n], true
		}
	}
	var parts []string
	var total time.Duration
	for _, w := range ws {
		parts = append(parts, deadline.Format(w))
		total += w
	}
	var s string
	switch {
	case full && len(ws) == 0:
		s = "no waits"
	case full:
		s = "waits " + strings.Join(parts, ", ") + " = " + deadline.Format(total)
		if r.PerAttempt > 0 {
			all := total + time.Duration(r.Attempts)*r.PerAttempt
			s += fmt.Sprintf(" + %d x %s = %s", r.Attempts, deadline.Format(r.PerAttempt), deadline.Format(all))
		}
	case len(ws) > 0:
		s = "waits " + strings.Join(parts, ", ") + ", ..."
	default:
		s = "waits unknown"
	}
	if r.WaitsAtLeast && len(ws) > 0 {
		s = "at least " + s
	}
	if r.Unbounded {
		s += " (unbounded)"
	}
	if r.MaxElapsed > 0 {
		s += "; at most " + deadline.Format(r.MaxElapsed) + " elapsed"
	}
	return s
}

// formatBaseline renders rows as the reviewable table, with the census's
// limits and truncations, carrying the reasons of the old baseline over.
func formatBaseline(c *Census, rows []*baseRow, old *baseFile) []byte {
	var buf bytes.Buffer
	buf.WriteString(baselineHeader)
	buf.WriteString(baseFormat + "\n")
	fmt.Fprintf(&buf, "# limits: %s\n", c.Limits)
	for _, p := range c.Pipelines {
		if t := p.Truncated; t != nil {
			fmt.Fprintf(&buf, "# truncated: %s: %s limit hit, %d entry paths kept (the shortest)\n", p.Function, t.Limit, t.RowsKept)
		}
	}
	tw := tabwriter.NewWriter(&buf, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "# "+strings.Join(baseColumns, "\t| "))
	seen := map[*baseRow]bool{}
	inTests := false
	for _, r := range rows {
		reason := ""
		if old != nil {
			if o := old.match(r, seen); o != nil {
				reason = o.Reason
			}
		}
		if r.test && !inTests {
			inTests = true
			fmt.Fprintln(tw, "# test entries (declared in _test.go files; gated with -gate-tests)")
		}
		fmt.Fprintf(tw, "%s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\n",
			r.Pipeline, r.Entry, escCell(r.Place), r.Required, r.Attempts, escCell(r.Schedule), r.P99, r.Deadline, r.CanStart, r.CoversP99, r.Path, reason)
	}
	tw.Flush()
	// tabwriter pads the last column too; trim trailing spaces.
	lines := strings.Split(buf.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return []byte(strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n")
}

// writeAtomic writes data to name through a temporary file in the same
// directory and a rename, so a reader never sees half a baseline. The
// temporary file is removed on every failure, and on SIGINT or SIGTERM
// while it exists (the process then exits 2, as on any error).
func writeAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			os.Remove(tmp.Name())
			os.Exit(exitUsage)
		case <-done:
		}
	}()
	defer func() {
		signal.Stop(sigs)
		close(done)
		os.Remove(tmp.Name()) // no-op after a successful rename
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename(tmp.Name())
	}
	return os.Rename(tmp.Name(), name)
}

// beforeRename is a test hook: it runs when the temporary file is written
// and not yet renamed.
var beforeRename func(tmp string)

// readBaseline reads and parses the baseline; a missing file is reported
// as such (exists false).
func readBaseline(name string, lenient bool) (base *baseFile, exists bool, err error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return &baseFile{rows: map[string][]*baseRow{}}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	base, err = parseBaseline(name, data, lenient)
	return base, true, err
}
