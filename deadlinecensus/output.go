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

// The JSON shape of DESIGN.md.
type jsonCensus struct {
	Pipelines []jsonPipeline `json:"pipelines"`
	Truncated []string       `json:"truncated,omitempty"`
}

type jsonPipeline struct {
	Function string       `json:"function"`
	Position string       `json:"position"`
	Policy   jsonPolicy   `json:"policy"`
	Callers  []jsonCaller `json:"callers"`
}

type jsonPolicy struct {
	Waits           []string `json:"waits"`
	Reserve         *string  `json:"reserve"`
	RequiredSeconds *float64 `json:"requiredSeconds"`
	RequiredAtLeast bool     `json:"requiredAtLeast,omitempty"`
	P99Seconds      *float64 `json:"p99Seconds"`
	Derivation      string   `json:"derivation"`
}

type jsonCaller struct {
	Entry           string   `json:"entry"`
	Kind            string   `json:"kind"`
	Path            []string `json:"path"`
	Deadline        string   `json:"deadline"`
	DeadlineSeconds *float64 `json:"deadlineSeconds"`
	DeadlineSource  string   `json:"deadlineSource"`
	RetryCanStart   string   `json:"retryCanStart"`
	CoversP99       string   `json:"coversP99"`
	Note            string   `json:"note,omitempty"`
}

func seconds(d time.Duration) *float64 {
	s := d.Seconds()
	return &s
}

// WriteJSON prints the census in the DESIGN.md shape.
func WriteJSON(w io.Writer, c *Census) error {
	out := jsonCensus{Pipelines: []jsonPipeline{}, Truncated: c.Truncated}
	for _, p := range c.Pipelines {
		jp := jsonPipeline{Function: p.Function, Position: p.Position, Callers: []jsonCaller{}}
		r := p.Req
		jp.Policy.Waits = []string{}
		for _, w := range r.Waits {
			jp.Policy.Waits = append(jp.Policy.Waits, deadline.Format(w))
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
				Deadline:       row.D.String(),
				DeadlineSource: row.Source,
				RetryCanStart:  row.CanStart.String(),
				CoversP99:      row.P99.String(),
				Note:           row.Note,
			}
			if row.D.Kind == deadline.Known {
				jc.DeadlineSeconds = seconds(row.D.D)
			}
			jp.Callers = append(jp.Callers, jc)
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
		var ws []string
		for _, w := range r.Waits {
			ws = append(ws, deadline.Format(w))
		}
		parts = append(parts, "waits "+strings.Join(ws, ", "))
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

// WriteText prints the census for a terminal: per pipeline, its policy and
// an aligned table of entries; tests are listed apart.
func WriteText(w io.Writer, c *Census) error {
	if len(c.Pipelines) == 0 {
		fmt.Fprintln(w, "no pipelines found (no retried remote call, no //retryvet:pipeline)")
	}
	for i, p := range c.Pipelines {
		if i > 0 {
			fmt.Fprintln(w)
		}
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
				if r.Note != "" {
					fmt.Fprintf(w, "    %s: %s\n", short(r.Entry), r.Note)
				}
			}
		}
		if len(prod) > 0 {
			table(prod)
		}
		if len(tests) > 0 {
			fmt.Fprintln(w, "  tests (a test whose deadline is below the need cannot observe the retry):")
			table(tests)
		}
	}
	for _, t := range c.Truncated {
		fmt.Fprintf(w, "note: callers of %s were too many to list in full\n", t)
	}
	return nil
}

func split(rows []*Row) (prod, tests []*Row) {
	for _, r := range rows {
		if r.Kind == "test" {
			tests = append(tests, r)
		} else {
			prod = append(prod, r)
		}
	}
	return prod, tests
}

// WriteMarkdown prints the census for a CI summary.
func WriteMarkdown(w io.Writer, c *Census) error {
	fmt.Fprintln(w, "## Deadline census")
	fmt.Fprintln(w)
	if len(c.Pipelines) == 0 {
		fmt.Fprintln(w, "No pipelines found.")
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, p := range c.Pipelines {
		fmt.Fprintf(w, "### `%s`\n\n", p.Function)
		fmt.Fprintf(w, "- position: `%s`\n- policy: %s\n- derived: %s\n\n", p.Position, esc(policyLine(p.Req)), esc(p.Req.Derivation))
		prod, tests := split(p.Callers)
		table := func(rows []*Row) {
			fmt.Fprintln(w, "| entry | kind | deadline | set at | retry can start | covers p99 | path |")
			fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
			for _, r := range rows {
				fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s |\n", short(r.Entry), r.Kind, deadlineCell(r), r.Source, mark(r.CanStart.String()), mark(r.P99.String()), esc(shortPath(r.Path)))
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
			fmt.Fprintln(w, "Tests:")
			fmt.Fprintln(w)
			table(tests)
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
