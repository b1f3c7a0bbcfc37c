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

	"github.com/retryvet/retryvet/internal/deadline"
)

// A baseline row: one reviewed (pipeline, entry, place where the deadline
// is set), with the shortest path that reaches it as information.
type baseRow struct {
	Pipeline, Entry, Place, Path string
	Required, P99, Deadline      string
	CanStart, CoversP99, Reason  string
	line                         int
	test                         bool // an entry declared in a _test.go file (-gate-tests)
	legacy                       bool // from a format 1 baseline: no place, matched by deadline
}

// key groups the candidates a census row is matched against.
func (b *baseRow) key() string { return b.Pipeline + "|" + b.Entry }

// baseFile is a parsed baseline file.
type baseFile struct {
	rows      map[string][]*baseRow
	legacy    bool              // format 1 (keyed by the whole path)
	limits    string            // the walk's limits it was written with ("" in format 1)
	truncated map[string]string // pipeline -> the truncation it was written with
}

const baselineHeader = `# retryvet census baseline: every production entry to every pipeline, one row
# per place where a deadline reaching the pipeline call is set, with the time
# its retry needs. The gate (retryvet census -baseline FILE) fails on an entry
# or deadline place not listed here, on a required time or deadline that
# differs from its row, and on a row whose retry cannot start (or whose
# deadline is below the p99) unless its last column gives the reason it is
# accepted. Rows are keyed by pipeline, entry and deadline place (closures
# are not numbered, lines are not counted); the path is information only.
# Regenerate with -update; edit only the reasons. Entries declared in
# _test.go files are gated only with -gate-tests (listed last).
`

const baseFormat = "# format: 2"

var baseColumns = []string{"pipeline", "entry", "deadline set at", "required", "p99", "deadline", "retry can start", "covers p99", "path", "reason"}

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
				Required: p.Req.RequiredString(), P99: p99, Deadline: r.D.String(),
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
	base := &baseFile{rows: map[string][]*baseRow{}, legacy: true, truncated: map[string]string{}}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == baseFormat {
			base.legacy = false
		}
	}
	cols := baseColumns
	if base.legacy {
		cols = legacyColumns
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
				continue
			}
			return nil, fmt.Errorf("%s:%d: malformed baseline row: want %d columns separated by '|' (%s), got %d",
				name, n, len(cols), strings.Join(cols, " | "), len(f))
		}
		if len(f) < len(cols) {
			f = append(f, "") // no reason
		}
		var b *baseRow
		if base.legacy {
			b = &baseRow{Pipeline: f[0], Entry: stableName(f[1]), Path: f[2], Required: f[3], P99: f[4], Deadline: f[5],
				CanStart: f[6], CoversP99: f[7], Reason: f[8], legacy: true}
		} else {
			b = &baseRow{Pipeline: f[0], Entry: f[1], Place: f[2], Required: f[3], P99: f[4], Deadline: f[5],
				CanStart: f[6], CoversP99: f[7], Path: f[8], Reason: f[9]}
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
		}
		if bad != "" {
			if lenient {
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
		return nil, fmt.Errorf("%s: %v", name, err)
	}
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

// gate compares the census with the baseline and returns one message per
// failing row, and notes on rows the baseline lists that are gone. A
// truncated census is compared only with a baseline written with the same
// limits (the subset it keeps depends on them).
func gate(c *Census, base *baseFile, gateTests bool) (fails, notes []string) {
	for _, p := range c.Pipelines {
		if p.Truncated == nil || base.limits == c.Limits.String() {
			continue
		}
		was := "without a record of its limits"
		if base.limits != "" {
			was = "with limits " + base.limits
		}
		fails = append(fails, fmt.Sprintf("cannot compare: the census of %s was truncated (%s limit hit, %d entry paths kept, limits %s) but the baseline was written %s; regenerate it with -update and the same limits",
			p.Function, p.Truncated.Limit, p.Truncated.RowsKept, c.Limits, was))
	}
	if len(fails) > 0 {
		return fails, nil
	}
	if base.legacy && len(base.rows) > 0 {
		notes = append(notes, "the baseline is in format 1 (rows keyed by the whole path): its rows are matched by pipeline, entry and deadline, and their reasons kept; -update rewrites it in format 2 (keyed by pipeline, entry and where the deadline is set)")
	}
	seen := map[*baseRow]bool{}
	for _, r := range rowsOf(c, gateTests) {
		desc := fmt.Sprintf("%s -> %s (deadline %s, needs %s)", short(r.Entry), short(r.Pipeline), r.Deadline, r.Required)
		b := base.match(r, seen)
		if b == nil {
			fails = append(fails, fmt.Sprintf("new entry path not in the baseline: %s; deadline set at %s; path %s", desc, r.Place, r.Path))
			continue
		}
		var drift []string
		if b.Required != r.Required {
			drift = append(drift, fmt.Sprintf("required time %s (baseline line %d: %s)", r.Required, b.line, b.Required))
		}
		if b.P99 != r.P99 {
			drift = append(drift, fmt.Sprintf("p99 %s (baseline line %d: %s)", r.P99, b.line, b.P99))
		}
		if b.Deadline != r.Deadline {
			drift = append(drift, fmt.Sprintf("deadline %s (baseline line %d: %s)", r.Deadline, b.line, b.Deadline))
		}
		if len(drift) > 0 {
			fails = append(fails, fmt.Sprintf("policy and deadline drifted apart: %s: %s", desc, strings.Join(drift, ", ")))
			continue
		}
		if b.Reason != "" {
			continue
		}
		if r.CanStart == "no" {
			fails = append(fails, fmt.Sprintf("retry can never start: %s; fix the deadline or accept the row with a reason (baseline line %d)", desc, b.line))
		} else if r.CoversP99 == "no" {
			fails = append(fails, fmt.Sprintf("deadline below the p99: %s (p99 %s); fix the deadline or accept the row with a reason (baseline line %d)", desc, r.P99, b.line))
		}
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
		notes = append(notes, fmt.Sprintf("baseline line %d lists a path the census no longer finds (%s -> %s): remove it with -update", b.line, short(b.Entry), short(b.Pipeline)))
	}
	return fails, notes
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
		fmt.Fprintf(tw, "%s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\n",
			r.Pipeline, r.Entry, escCell(r.Place), r.Required, r.P99, r.Deadline, r.CanStart, r.CoversP99, r.Path, reason)
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
