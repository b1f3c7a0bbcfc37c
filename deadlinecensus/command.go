package deadlinecensus

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/values"
)

// Exit codes of `retryvet census` (DESIGN.md). A package with errors is
// exit 2 even when the gate also failed: errors beat findings, as in the
// analyzers, where 1 (a package did not load) beats 3 (findings).
const (
	exitOK    = 0
	exitGate  = 1
	exitUsage = 2
	exitLoad  = 2
)

// Command runs `retryvet census args...` and returns the exit code: 0 fine,
// 1 the baseline gate failed (each failing row named on stderr), 2 usage or
// load error. A package that does not load or type-check is reported on
// stderr as go vet does and left out; the census, its output and the gate
// are still taken over the other packages, and the exit is 2.
func Command(args []string, stdout, stderr io.Writer) int {
	return CommandProbe(args, stdout, stderr, nil)
}

// A Prober takes the census's first step (probe.go) over the packages the
// patterns name and the rest of their main modules: the files where a
// pipeline may be (absolute paths; none: the census is empty), and ok
// false when it could not tell.
type Prober func(patterns []string) (seeds []string, ok bool)

// CommandProbe is Command with the first step: when probe finds no
// pipeline the census is empty and the program is not loaded; when it
// finds some, only the packages that can be linked with theirs are.
func CommandProbe(args []string, stdout, stderr io.Writer, probe Prober) int {
	fs := flag.NewFlagSet("census", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: "+strings.Join(Formats, ", "))
	baseline := fs.String("baseline", "", "gate against this baseline file (exit 1 on a new entry or deadline place, an unaccepted short deadline, or drift)")
	update := fs.Bool("update", false, "rewrite the -baseline file from this census, keeping the reasons it gives")
	tests := fs.Bool("tests", false, "list test entries (functions and methods declared in _test.go files) row by row; without it each pipeline's tests are one line (JSON always lists them)")
	gateTests := fs.Bool("gate-tests", false, "gate test entries too (listed apart in the baseline); off by default: a test's deadline shapes no production traffic")
	useCHA := fs.Bool("cha", false, "build the call graph with CHA instead of VTA (faster, less precise)")
	p99 := fs.Duration("p99", 0, "default p99 latency of remote calls whose function has no //retryvet:p99 directive (a directive wins), e.g. 30s")
	htmlFile := fs.String("html", "", "also write the census as a self-contained HTML page to this file (the CI artifact)")
	maxRows := fs.Int("max-rows", DefaultLimits.Rows, "entry paths listed per pipeline; past it the shortest are kept (deterministically) and the pipeline is marked truncated")
	maxSteps := fs.Int("max-steps", DefaultLimits.Steps, "functions the backward walk visits per pipeline")
	maxDepth := fs.Int("max-depth", DefaultLimits.Depth, "functions on one entry path")
	valuesFile := fs.String("values", "", "read the values file FILE instead of "+values.FileName+" at the module root (docs/values.md)")
	var sets []string
	fs.Func("set", "override one entry of the values file: SECTION.NAME=VALUE, e.g. -set 'fields.example.com/svc/config.Config.Timeout=40s' (repeatable)", func(s string) error {
		if err := values.Empty().Set(s); err != nil {
			return err
		}
		sets = append(sets, s)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: retryvet census [-format text|markdown|json|html] [-baseline FILE [-update]] [-html FILE] [-tests] [-gate-tests] [-p99 DURATION] packages...")
		fmt.Fprintln(stderr, "\nLists every pipeline (a function whose remote call is retried), every entry path that")
		fmt.Fprintln(stderr, "reaches it, the deadline on that path and whether the retry can start; why a verdict")
		fmt.Fprintln(stderr, "is unknown and what would decide it. Exit 0 fine, 1 the baseline gate failed, 2 usage or load error.")
		fmt.Fprintln(stderr, "A package that does not load or type-check is reported (file:line: error) and left out,")
		fmt.Fprintln(stderr, "with the packages that import it; the rest is still censused and gated, and the exit is 2")
		fmt.Fprintln(stderr, "even if the gate failed too. -update does not rewrite the baseline then.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK // -h asked for the help: not an error
		}
		return exitUsage
	}
	if !slices.Contains(Formats, *format) {
		fmt.Fprintf(stderr, "retryvet census: unknown -format %q (want %s)\n", *format, strings.Join(Formats, ", "))
		return exitUsage
	}
	lim := Limits{Rows: *maxRows, Steps: *maxSteps, Depth: *maxDepth}
	if lim.Rows < 1 || lim.Steps < 1 || lim.Depth < 1 {
		fmt.Fprintln(stderr, "retryvet census: -max-rows, -max-steps and -max-depth must be positive")
		return exitUsage
	}
	if *p99 < 0 {
		fmt.Fprintln(stderr, "retryvet census: -p99 must be a positive duration")
		return exitUsage
	}
	if *p99 > 0 {
		retrymodel.SetDefaultP99(*p99)
	}
	if *update && *baseline == "" {
		fmt.Fprintln(stderr, "retryvet census: -update needs -baseline FILE")
		return exitUsage
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	// The values file: a malformed one is an error before any work.
	vals, err := values.Resolve(*valuesFile, ".", sets)
	if err != nil {
		fmt.Fprintf(stderr, "retryvet census: %v\n", err)
		return exitUsage
	}
	values.Use(vals)
	// Read the baseline first: a malformed one is an error before any work
	// (and is never replaced, except by -update).
	var base *baseFile
	if *baseline != "" {
		var exists bool
		var err error
		base, exists, err = readBaseline(*baseline, *update)
		if err != nil {
			fmt.Fprintf(stderr, "retryvet census: %v (the file is left as it is; -update rewrites it)\n", err)
			return exitUsage
		}
		if exists && *update && base.alien {
			fmt.Fprintf(stderr, "retryvet census: %s does not look like a census baseline (no header, no row): not replacing it; remove it or name another file\n", *baseline)
			return exitUsage
		}
		if !exists && !*update {
			fmt.Fprintf(stderr, "retryvet census: baseline %s does not exist: create it with -update and review it\n", *baseline)
			return exitUsage
		}
	}
	// Tests are always loaded: test entries are summarised (or listed with
	// -tests), and a _test.go file may declare a production path's caller.
	var prog *Program
	var c *Census
	// The first step, unless a values file's entries must be matched
	// against the whole loaded program.
	tr := newPhaseTrace()
	var seeds []string
	switch {
	case probe == nil:
	case vals.Len() > 0:
		tr.phase("probe: not run (the values file has entries)")
	default:
		files, ok := probe(patterns)
		switch {
		case !ok:
			tr.phase("probe: go vet failed, loading everything")
		case len(files) == 0:
			tr.phase("probe: no pipeline, nothing loaded")
			prog, c = &Program{}, &Census{Limits: lim}
		default:
			tr.phase(fmt.Sprintf("probe: a pipeline may be in %d files", len(files)))
			seeds = files
		}
	}
	if prog == nil {
		prog, err = Load(Options{Tests: true, CHA: *useCHA, KeepSSA: vals.Len() > 0, Seeds: seeds}, patterns...)
		if err != nil {
			fmt.Fprintf(stderr, "retryvet census: %v\n", err)
			return exitUsage
		}
	}
	reportBroken(stderr, prog.Broken)
	// done turns the verdict into the exit code: a broken package wins.
	done := func(code int) int {
		if len(prog.Broken) > 0 {
			return exitLoad
		}
		return code
	}
	if c == nil {
		if c, err = RunWith(prog, lim); err != nil {
			fmt.Fprintf(stderr, "retryvet census: %v\n", err)
			return exitUsage
		}
	}
	for _, e := range deadline.Unmatched(prog.Prog, prog.funcs, vals) {
		fmt.Fprintf(stderr, "warning: %s\n", deadline.UnmatchedMessage(e))
	}
	// The gate (or, with -update, the gate the new baseline sets up) runs
	// before the output, so that the HTML page shows its verdict.
	var g *gateResult
	var wrote []byte
	if *baseline != "" {
		if *update {
			wrote = formatBaseline(c, rowsOf(c, *gateTests), base)
			nb, err := parseBaseline(*baseline, wrote, false)
			if err != nil {
				fmt.Fprintf(stderr, "retryvet census: internal error: the baseline written does not parse: %v\n", err)
				return exitUsage
			}
			g = runGate(c, nb, *gateTests)
		} else {
			g = runGate(c, base, *gateTests)
		}
	}
	if *htmlFile != "" {
		var page bytes.Buffer
		if err := WriteHTML(&page, c, WriteOptions{Tests: *tests, gate: g, baseline: *baseline}); err != nil {
			fmt.Fprintf(stderr, "retryvet census: %v\n", err)
			return exitUsage
		}
		if err := os.WriteFile(*htmlFile, page.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "retryvet census: writing the HTML page: %v\n", err)
			return exitUsage
		}
	}
	if err := Write(stdout, c, *format, WriteOptions{Tests: *tests, gate: g, baseline: *baseline}); err != nil {
		fmt.Fprintf(stderr, "retryvet census: %v\n", err)
		return exitUsage
	}
	if *baseline == "" {
		return done(exitOK)
	}
	if *update {
		if len(prog.Broken) > 0 {
			fmt.Fprintf(stderr, "retryvet census: not rewriting %s: %d packages have errors, and their rows would be dropped from it; fix them and run -update again\n", *baseline, len(prog.Broken))
			return exitLoad
		}
		if err := writeAtomic(*baseline, wrote); err != nil {
			fmt.Fprintf(stderr, "retryvet census: writing the baseline: %v\n", err)
			return exitUsage
		}
		msg := fmt.Sprintf("retryvet census: wrote %s (%d rows", *baseline, g.Rows)
		switch {
		case base.legacy && len(base.rows) > 0:
			msg += fmt.Sprintf("; converted from format 1 to %d: rows are now keyed by pipeline, entry and where the deadline is set, reasons matched by pipeline, entry and deadline", baseVersion)
		case base.format == 2 && len(base.rows) > 0:
			msg += fmt.Sprintf("; converted from format 2 to %d: rows now carry the retry's attempts and worst-case schedule, reasons kept", baseVersion)
		}
		if base.skipped > 0 {
			msg += fmt.Sprintf("; %d malformed lines of the old file dropped", base.skipped)
		}
		fmt.Fprintln(stderr, msg+")")
		for _, name := range c.Truncated {
			fmt.Fprintf(stderr, "retryvet census: note: the census of %s is truncated; the gate compares it only with these limits (%s)\n", name, c.Limits)
		}
		// What the first gate run on unchanged code will say.
		if g.Passed() {
			fmt.Fprintf(stderr, "retryvet census: every row passes the gate as written (%s)\n", g.Verdict(*baseline))
			return exitOK
		}
		fmt.Fprintf(stderr, "retryvet census: %d of %d rows need a reason before the gate passes (their retry cannot start or their deadline is below the p99): fix the deadline, or write why it is accepted in the row's last column:\n", len(g.Fails), g.Rows)
		for _, f := range g.Fails {
			fmt.Fprintf(stderr, "  %s\n", f)
		}
		return exitOK
	}
	if len(prog.Broken) > 0 {
		fmt.Fprintf(stderr, "note: %d packages with errors are left out of the census: rows of theirs in the baseline show as no longer found\n", len(prog.Broken))
	}
	for _, n := range g.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	for _, f := range g.Fails {
		fmt.Fprintf(stderr, "FAIL: %s\n", f)
	}
	fmt.Fprintln(stderr, g.Verdict(*baseline))
	if !g.Passed() {
		return done(exitGate)
	}
	return done(exitOK)
}
