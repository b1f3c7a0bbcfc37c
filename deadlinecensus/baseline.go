package deadlinecensus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/retryvet/retryvet/internal/deadline"
)

// A baseline row: one reviewed entry path to a pipeline.
type baseRow struct {
	Pipeline, Entry, Path       string
	Required, P99, Deadline     string
	CanStart, CoversP99, Reason string
	line                        int
}

func (b *baseRow) key() string { return b.Pipeline + "|" + b.Entry + "|" + b.Path }

const baselineHeader = `# retryvet census baseline: every production entry path to every pipeline,
# with the deadline that reaches the pipeline call and the time its retry needs.
# The gate (retryvet census -baseline FILE) fails on a path not listed here, on a
# required time or deadline that differs from its row, and on a row whose retry
# cannot start (or whose deadline is below the p99) unless its last column gives
# the reason it is accepted. Regenerate with -update; edit only the reasons.
# Tests are listed by the census apart and are not gated.
`

var baseColumns = []string{"pipeline", "entry", "path", "required", "p99", "deadline", "retry can start", "covers p99", "reason"}

// rowsOf turns the census into baseline rows (production entries only), in
// a stable order.
func rowsOf(c *Census) []*baseRow {
	var out []*baseRow
	for _, p := range c.Pipelines {
		p99 := "-"
		if p.Req.P99 > 0 {
			p99 = deadline.Format(p.Req.P99)
		}
		for _, r := range p.Callers {
			if r.Kind == "test" {
				continue
			}
			out = append(out, &baseRow{
				Pipeline: p.Function, Entry: r.Entry, Path: strings.Join(r.Path, " -> "),
				Required: p.Req.RequiredString(), P99: p99, Deadline: r.D.String(),
				CanStart: r.CanStart.String(), CoversP99: r.P99.String(),
			})
		}
	}
	slices.SortStableFunc(out, func(a, b *baseRow) int { return strings.Compare(a.key(), b.key()) })
	// The same path may reach the pipeline under different deadlines (two
	// call sites): keep them apart by deadline.
	return out
}

// parseBaseline reads a baseline file. A malformed line is an error naming
// it; lenient (for -update) skips malformed lines instead.
func parseBaseline(name string, data []byte, lenient bool) (map[string][]*baseRow, error) {
	rows := map[string][]*baseRow{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) < len(baseColumns) {
			if lenient {
				continue
			}
			return nil, fmt.Errorf("%s:%d: malformed baseline row: want %d columns separated by '|' (%s), got %d",
				name, n, len(baseColumns), strings.Join(baseColumns, " | "), len(f))
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		b := &baseRow{Pipeline: f[0], Entry: f[1], Path: f[2], Required: f[3], P99: f[4], Deadline: f[5],
			CanStart: f[6], CoversP99: f[7], Reason: strings.TrimSpace(strings.Join(f[8:], "|")), line: n}
		var bad string
		switch {
		case b.Pipeline == "" || b.Entry == "" || b.Path == "":
			bad = "pipeline, entry and path must not be empty"
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
		for _, o := range rows[b.key()] {
			if o.Deadline == b.Deadline {
				if lenient {
					continue
				}
				return nil, fmt.Errorf("%s:%d: duplicate baseline row (first at line %d)", name, n, o.line)
			}
		}
		rows[b.key()] = append(rows[b.key()], b)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return rows, nil
}

func isTri(s string) bool { return s == "yes" || s == "no" || s == "unknown" }

// gate compares the census with the baseline and returns one message per
// failing row, and notes on rows the baseline lists that are gone.
func gate(c *Census, base map[string][]*baseRow) (fails, notes []string) {
	seen := map[*baseRow]bool{}
	for _, r := range rowsOf(c) {
		desc := fmt.Sprintf("%s -> %s (deadline %s, needs %s)", short(r.Entry), short(r.Pipeline), r.Deadline, r.Required)
		cands := base[r.key()]
		if len(cands) == 0 {
			fails = append(fails, fmt.Sprintf("new entry path not in the baseline: %s; path %s", desc, r.Path))
			continue
		}
		var b *baseRow
		for _, o := range cands {
			if o.Deadline == r.Deadline && !seen[o] {
				b = o
			}
		}
		if b == nil {
			for _, o := range cands {
				if !seen[o] {
					b = o
					break
				}
			}
		}
		if b == nil {
			b = cands[0]
		}
		seen[b] = true
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
	for _, rs := range base {
		for _, b := range rs {
			if !seen[b] {
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

// formatBaseline renders rows as the reviewable table, carrying the
// reasons of the old baseline over.
func formatBaseline(rows []*baseRow, old map[string][]*baseRow) []byte {
	var buf bytes.Buffer
	buf.WriteString(baselineHeader)
	tw := tabwriter.NewWriter(&buf, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "# "+strings.Join(baseColumns, "\t| "))
	for _, r := range rows {
		reason := ""
		for _, o := range old[r.key()] {
			if o.Reason != "" && (reason == "" || o.Deadline == r.Deadline) {
				reason = o.Reason
			}
		}
		fmt.Fprintf(tw, "%s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\t| %s\n",
			r.Pipeline, r.Entry, r.Path, r.Required, r.P99, r.Deadline, r.CanStart, r.CoversP99, reason)
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
// directory and a rename, so a reader never sees half a baseline.
func writeAtomic(name string, data []byte) error {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
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
	return os.Rename(tmp.Name(), name)
}

// readBaseline reads and parses the baseline; a missing file is reported
// as such (exists false).
func readBaseline(name string, lenient bool) (rows map[string][]*baseRow, exists bool, err error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]*baseRow{}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rows, err = parseBaseline(name, data, lenient)
	return rows, true, err
}
