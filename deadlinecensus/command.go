package deadlinecensus

import (
	"flag"
	"fmt"
	"io"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
	"github.com/retryvet/retryvet/internal/values"
)

// Exit codes of `retryvet census` (DESIGN.md).
const (
	exitOK    = 0
	exitGate  = 1
	exitUsage = 2
)

// Command runs `retryvet census args...` and returns the exit code: 0 fine,
// 1 the baseline gate failed (each failing row named on stderr), 2 usage or
// load error.
func Command(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("census", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text, markdown or json")
	baseline := fs.String("baseline", "", "gate against this baseline file (exit 1 on a new path, an unaccepted short deadline, or drift)")
	update := fs.Bool("update", false, "rewrite the -baseline file from this census, keeping the reasons it gives")
	tests := fs.Bool("tests", true, "include tests (listed apart, kind test)")
	useCHA := fs.Bool("cha", false, "build the call graph with CHA instead of VTA (faster, less precise)")
	p99 := fs.Duration("p99", 0, "default p99 latency of remote calls whose function has no //retryvet:p99 directive (a directive wins), e.g. 30s")
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
		fmt.Fprintln(stderr, "usage: retryvet census [-format text|markdown|json] [-baseline FILE [-update]] [-p99 DURATION] packages...")
		fmt.Fprintln(stderr, "\nLists every pipeline (a function whose remote call is retried), every entry path that")
		fmt.Fprintln(stderr, "reaches it, the deadline on that path and whether the retry can start.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	switch *format {
	case "text", "markdown", "json":
	default:
		fmt.Fprintf(stderr, "retryvet census: unknown -format %q (want text, markdown or json)\n", *format)
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
	var base map[string][]*baseRow
	if *baseline != "" {
		var exists bool
		var err error
		base, exists, err = readBaseline(*baseline, *update)
		if err != nil {
			fmt.Fprintf(stderr, "retryvet census: %v\n", err)
			return exitUsage
		}
		if !exists && !*update {
			fmt.Fprintf(stderr, "retryvet census: baseline %s does not exist: create it with -update and review it\n", *baseline)
			return exitUsage
		}
	}
	prog, err := Load(Options{Tests: *tests, CHA: *useCHA}, patterns...)
	if err != nil {
		fmt.Fprintf(stderr, "retryvet census: %v\n", err)
		return exitUsage
	}
	c, err := Run(prog)
	if err != nil {
		fmt.Fprintf(stderr, "retryvet census: %v\n", err)
		return exitUsage
	}
	for _, e := range deadline.Unmatched(prog.Prog, prog.funcs, vals) {
		fmt.Fprintf(stderr, "warning: %s\n", deadline.UnmatchedMessage(e))
	}
	switch *format {
	case "json":
		err = WriteJSON(stdout, c)
	case "markdown":
		err = WriteMarkdown(stdout, c)
	default:
		err = WriteText(stdout, c)
	}
	if err != nil {
		fmt.Fprintf(stderr, "retryvet census: %v\n", err)
		return exitUsage
	}
	if *baseline == "" {
		return exitOK
	}
	if *update {
		if err := writeAtomic(*baseline, formatBaseline(rowsOf(c), base)); err != nil {
			fmt.Fprintf(stderr, "retryvet census: writing the baseline: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "retryvet census: wrote %s (%d rows)\n", *baseline, len(rowsOf(c)))
		return exitOK
	}
	fails, notes := gate(c, base)
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	if len(fails) > 0 {
		for _, f := range fails {
			fmt.Fprintf(stderr, "FAIL: %s\n", f)
		}
		fmt.Fprintf(stderr, "retryvet census: the baseline gate failed (%d rows): fix the deadlines, or accept rows with a reason in %s\n", len(fails), *baseline)
		return exitGate
	}
	return exitOK
}
