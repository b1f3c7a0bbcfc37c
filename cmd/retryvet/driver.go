package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/retryvet/retryvet/internal/inputs"
	"github.com/retryvet/retryvet/internal/values"
)

// A driver is the standalone command: `retryvet [flags] packages...` runs
// `go vet -vettool=tool -json` and renders its output.
type driver struct {
	tool      string // the vet tool: this binary
	dir       string // working directory of the go command ("" = current)
	analyzers []*analysis.Analyzer
	flags     *flag.FlagSet // the vet tool's own flags (registerToolFlags)
	stdout    io.Writer
	stderr    io.Writer

	mu       sync.Mutex
	children map[*exec.Cmd]bool // running go commands (signals.go)
	stopping bool               // a signal came: the handler exits (signals.go)
}

// options are the parsed command line of the standalone command.
type options struct {
	format    string   // text, json or sarif
	fix, diff bool     // -fix [-diff]: go vet -fix applies (or prints) the fixes
	context   int      // -c N: lines of context in text mode (-1: none)
	tests     bool     // -test (default true)
	buildArgs []string // go build flags (-tags, -mod, -C ...), passed to go vet and go list
	toolArgs  []string // the vet tool's flags (-NAME, -p99, -test ...), passed to go vet
	values    string   // -values FILE: read by the driver, declared to the vet tool
	declared  bool     // the command line declares the inputs itself (-values-yaml, -manifests)
	patterns  []string
}

// goValueFlags are the go build flags that take a value; any other
// unknown flag is passed to the go command as given.
var goValueFlags = map[string]bool{
	"C": true, "tags": true, "mod": true, "modfile": true, "overlay": true, "pgo": true, "p": true,
	"gcflags": true, "ldflags": true, "asmflags": true, "gccgoflags": true, "toolexec": true,
	"installsuffix": true, "buildmode": true, "compiler": true, "pkgdir": true, "covermode": true,
	"coverpkg": true, "exec": true, "buildvcs": false, "debug-actiongraph": true, "debug-runtime-trace": true,
	"debug-trace": true, "vettool": true,
}

// goBoolFlags are the go build flags that take no value. A flag that is
// neither ours, the vet tool's nor the go command's is a usage error.
var goBoolFlags = map[string]bool{
	"a": true, "n": true, "x": true, "v": true, "work": true, "race": true, "msan": true, "asan": true,
	"cover": true, "trimpath": true, "linkshared": true, "modcacherw": true, "buildvcs": true,
}

func (d *driver) usage() {
	fmt.Fprintf(d.stderr, "usage: retryvet [-format text|json|sarif] [-fix [-diff]] [-NAME[=false]...] [-test=false] [-p99 DURATION] [build flags] packages...\n")
	fmt.Fprintf(d.stderr, "       retryvet census [flags] packages...\n")
	fmt.Fprintf(d.stderr, "       retryvet inputs [-values FILE] [-root DIR]\n")
	fmt.Fprintf(d.stderr, "Run 'retryvet help' for more.\n")
}

// parse splits the command line into our flags, the vet tool's flags
// (forwarded to go vet, which knows them from -flags), go build flags and
// package patterns.
func (d *driver) parse(args []string) (*options, error) {
	o := &options{format: "text", context: -1, tests: true}
	isAnalyzer := map[string]*analysis.Analyzer{}
	for _, a := range d.analyzers {
		isAnalyzer[a.Name] = a
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.patterns = append(o.patterns, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			o.patterns = append(o.patterns, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		next := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("flag needs an argument: -%s", name)
			}
			i++
			return args[i], nil
		}
		boolValue := func() (bool, error) {
			if !hasValue {
				return true, nil
			}
			b, err := strconv.ParseBool(value)
			if err != nil {
				return false, fmt.Errorf("invalid boolean value %q for -%s", value, name)
			}
			return b, nil
		}
		var err error
		switch name {
		case "h", "help":
			return nil, flag.ErrHelp
		case "format":
			var v string
			if v, err = next(); err == nil {
				switch v {
				case "text", "json", "sarif":
					o.format = v
				default:
					err = fmt.Errorf("unknown format %q: want %s", v, formatUsage)
				}
			}
		case "json":
			var b bool
			if b, err = boolValue(); err == nil && b {
				o.format = "json"
			}
		case "fix":
			o.fix, err = boolValue()
		case "diff":
			o.diff, err = boolValue()
		case "c":
			var v string
			if v, err = next(); err == nil {
				o.context, err = strconv.Atoi(v)
			}
		case "values":
			// Read here, relative to the working directory, and declared
			// to the vet tool as text (internal/inputs).
			o.values, err = next()
		case "set":
			var v string
			if v, err = next(); err == nil {
				if err = values.Empty().Set(v); err == nil {
					o.toolArgs = append(o.toolArgs, "-set="+v)
				}
			}
		default:
			if isTool, isBool := d.toolFlag(name, isAnalyzer); isTool {
				if _, fl, ok := strings.Cut(name, "."); name == inputs.ValuesYAML || name == inputs.Manifests || ok && (fl == inputs.ValuesYAML || fl == inputs.Manifests) {
					o.declared = true
				}
				if name == "test" {
					if o.tests, err = boolValue(); err != nil {
						break
					}
				}
				if isBool || hasValue {
					o.toolArgs = append(o.toolArgs, a)
				} else {
					var v string
					if v, err = next(); err == nil {
						o.toolArgs = append(o.toolArgs, "-"+name+"="+v)
					}
				}
				break
			}
			if !goValueFlags[name] && !goBoolFlags[name] {
				err = fmt.Errorf("flag provided but not defined: -%s", name)
				break
			}
			flagArgs := []string{a}
			if goValueFlags[name] && !hasValue {
				var v string
				if v, err = next(); err == nil {
					flagArgs = append(flagArgs, v)
				}
			}
			if name == "C" { // the go command wants -C first
				o.buildArgs = append(flagArgs, o.buildArgs...)
			} else {
				o.buildArgs = append(o.buildArgs, flagArgs...)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if o.diff && !o.fix {
		return nil, fmt.Errorf("-diff needs -fix")
	}
	return o, nil
}

// toolFlag is the vet tool's flag called name: an analyzer's enable flag,
// an analyzer's own flag (NAME.flag) or one of registerToolFlags.
func (d *driver) toolFlag(name string, analyzers map[string]*analysis.Analyzer) (isTool, isBool bool) {
	if analyzers[name] != nil {
		return true, true
	}
	var f *flag.Flag
	if an, fl, ok := strings.Cut(name, "."); ok && analyzers[an] != nil {
		f = analyzers[an].Flags.Lookup(fl)
	} else {
		f = d.flags.Lookup(name)
	}
	if f == nil {
		return false, false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return true, ok && b.IsBoolFlag()
}

func (d *driver) main(args []string) int {
	o, err := d.parse(args)
	if err == flag.ErrHelp {
		d.usage()
		return 0
	}
	if err != nil {
		fmt.Fprintf(d.stderr, "retryvet: %v\n", err)
		d.usage()
		return exitUsage
	}
	if len(o.patterns) == 0 {
		fmt.Fprintf(d.stderr, "retryvet: no packages given (for the module in this directory: retryvet ./...)\n")
		d.usage()
		return exitUsage
	}
	// The inputs the analyzers read besides the package files, declared
	// to the vet tool as flags (internal/inputs): go vet's cache keys on
	// them. A values file that does not parse stops the run here, with
	// its file and line.
	var inputErrs []string
	if !o.declared {
		found, err := inputs.Discover(d.workDir(o), o.values)
		if err != nil {
			fmt.Fprintf(d.stderr, "retryvet: %v\n", err)
			return exitUsage
		}
		for _, p := range found.Problems() {
			inputErrs = append(inputErrs, "retryvet: "+p)
		}
		flags, err := found.Args(inputs.CacheDir())
		if err != nil {
			fmt.Fprintf(d.stderr, "retryvet: %v\n", err)
			return exitErrors
		}
		o.toolArgs = append(flags, o.toolArgs...)
	}
	stop := d.handleSignals() // signals.go
	defer stop()
	if o.fix {
		return d.fix(o, inputErrs)
	}
	res, err := d.vet(o)
	if err != nil {
		fmt.Fprintf(d.stderr, "retryvet: %v\n", err)
		return exitErrors
	}
	res.errors = append(inputErrs, res.errors...)
	return d.render(o, res)
}

// Exit codes of the analyzers (the census's are in deadlinecensus).
const (
	exitClean    = 0
	exitErrors   = 1 // a package did not load or type-check, an analyzer failed, a manifest is malformed
	exitUsage    = 2 // bad flags, no packages, a values file that does not parse
	exitFindings = 3
)

// workDir is the directory the go command runs in: d.dir and -C.
func (d *driver) workDir(o *options) string {
	dir := d.dir
	if dir == "" {
		dir = "."
	}
	for i, a := range o.buildArgs {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "C" {
			continue
		}
		if !hasValue && i+1 < len(o.buildArgs) {
			value = o.buildArgs[i+1]
		}
		if filepath.IsAbs(value) {
			return value
		}
		return filepath.Join(dir, value)
	}
	return dir
}

// goCmd is a go command in d.dir with build flags first (-C must lead).
func (d *driver) goCmd(sub string, o *options, rest ...string) *exec.Cmd {
	args := append([]string{sub}, o.buildArgs...)
	cmd := exec.Command("go", append(args, rest...)...)
	cmd.Dir = d.dir
	return cmd
}

// fix runs go vet -fix [-diff]: the go command applies the fixes of the
// packages of the main module after the analysis (or prints them as
// diffs), as x/tools' -fix does. Then it reports what no fix settles: with
// -fix, the findings that remain once the fixes are applied; with -diff,
// the findings that have no fix. Those exit 3, as findings do, so a CI
// step that runs -fix does not pass on code with findings it cannot fix.
func (d *driver) fix(o *options, inputErrs []string) int {
	rest := []string{"-vettool=" + d.tool, "-fix"}
	if o.diff {
		rest = append(rest, "-diff")
	}
	rest = append(append(rest, o.toolArgs...), o.patterns...)
	cmd := d.goCmd("vet", o, rest...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = d.stdout, &stderr
	if err := d.runCmd(cmd); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			fmt.Fprintf(d.stderr, "retryvet: %v\n", err)
			return exitErrors
		}
	}
	res, err := d.vet(o)
	if err != nil {
		fmt.Fprintf(d.stderr, "retryvet: %v\n", err)
		return exitErrors
	}
	res.errors = append(inputErrs, res.errors...)
	if o.diff {
		res.tree.dropFixable()
	}
	o.format = "text"
	return d.render(o, res)
}

// vetResult is what go vet reported.
type vetResult struct {
	tree   vetTree  // package path -> analyzer -> findings or error
	errors []string // packages that did not load, build or type-check, with their errors
}

// vet runs go vet -json with this binary as the vet tool. If the go
// command refuses the whole run because some packages cannot be loaded
// (it checks every package before it starts), those packages are reported
// with their errors and the others are vetted.
func (d *driver) vet(o *options) (*vetResult, error) {
	res := &vetResult{tree: vetTree{}}
	ok, failure, err := d.runVet(o, o.patterns, res)
	if err != nil || ok {
		return res, err
	}
	// Nothing was analysed: find the packages that load.
	good, bad, err := d.partition(o)
	if err != nil {
		return nil, err
	}
	if len(bad) == 0 {
		// Not a load error go list knows of: report what go vet said.
		res.errors = failure
		return res, nil
	}
	res.errors = bad
	if len(good) == 0 {
		return res, nil
	}
	if ok, failure, err = d.runVet(o, good, res); err != nil {
		return nil, err
	} else if !ok {
		res.errors = append(res.errors, failure...)
	}
	return res, nil
}

// runVet runs go vet on pkgs and adds its findings and errors to res. When
// the go command failed before it analysed anything (a load error of some
// package stops it before any work), it adds nothing and returns false
// with what go vet printed.
func (d *driver) runVet(o *options, pkgs []string, res *vetResult) (analysed bool, failure []string, err error) {
	rest := append([]string{"-vettool=" + d.tool, "-json"}, o.toolArgs...)
	cmd := d.goCmd("vet", o, append(rest, pkgs...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := d.runCmd(cmd)
	if runErr != nil {
		if _, ok := runErr.(*exec.ExitError); !ok {
			return false, nil, runErr
		}
	}
	sections := splitSections(stderr.String())
	if runErr != nil && len(sections) == 0 {
		sections = []string{"go vet: " + runErr.Error()}
	}
	if runErr != nil && stdout.Len() == 0 && !hasHeader(sections) {
		return false, sections, nil
	}
	if err := res.tree.decode(stdout.Bytes()); err != nil {
		return false, nil, fmt.Errorf("reading go vet -json output: %v", err)
	}
	res.errors = append(res.errors, sections...)
	return true, nil, nil
}

// splitSections cuts go vet's stderr into one text per "# package" section
// (plus any text before the first header, such as go: warnings).
func splitSections(s string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if t := strings.TrimRight(cur.String(), "\n"); strings.TrimSpace(t) != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "# ") {
			flush()
		}
		cur.WriteString(line)
	}
	flush()
	return out
}

func hasHeader(sections []string) bool {
	for _, s := range sections {
		if strings.HasPrefix(s, "# ") {
			return true
		}
	}
	return false
}

// listed is the part of `go list -e -json` the partition reads.
type listed struct {
	ImportPath string
	Error      *struct{ Err string }
	DepsErrors []*struct{ Err string }
}

// partition lists the packages (go list -e) and splits them into those go
// vet can load and those it cannot, the latter with their errors.
func (d *driver) partition(o *options) (good, bad []string, err error) {
	// The embed fields make go list resolve //go:embed patterns, whose
	// errors (a pattern that matches no file) fail go vet too.
	cmd := d.goCmd("list", o, append([]string{"-e", "-json=ImportPath,Error,DepsErrors,EmbedFiles,TestEmbedFiles,XTestEmbedFiles"}, o.patterns...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := d.runCmd(cmd); err != nil {
		return nil, nil, fmt.Errorf("go list: %v\n%s", err, strings.TrimSpace(stderr.String()))
	}
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, nil, fmt.Errorf("reading go list output: %v", err)
		}
		var errs []string
		if p.Error != nil {
			errs = append(errs, p.Error.Err)
		}
		for _, e := range p.DepsErrors {
			errs = append(errs, e.Err)
		}
		if len(errs) == 0 {
			good = append(good, p.ImportPath)
			continue
		}
		bad = append(bad, "# "+p.ImportPath+"\n"+strings.Join(errs, "\n"))
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		bad = append(bad, s)
	}
	return good, bad, nil
}

// pkgPath is the package path of a go vet unit ID: "p [p.test]" is p.
func pkgPath(id string) string {
	path, _, _ := strings.Cut(id, " [")
	return path
}

func (d *driver) writeErrors(errs []string) {
	for _, e := range errs {
		fmt.Fprintln(d.stderr, e)
	}
}

// render prints the result in the chosen format and returns the exit
// code: 1 if anything failed, else 3 with findings in text and SARIF
// (x/tools: -json exits 0 when it has printed the findings), else 0.
func (d *driver) render(o *options, res *vetResult) int {
	d.writeErrors(res.errors)
	findings := res.tree.findings(d.stderr)
	failed := len(res.errors) > 0 || res.tree.hasErrors()
	switch o.format {
	case "json":
		if err := res.tree.print(d.stdout); err != nil {
			fmt.Fprintf(d.stderr, "retryvet: %v\n", err)
			return 1
		}
		if failed {
			return 1
		}
		return 0
	case "sarif":
		if err := d.writeSARIF(findings, res); err != nil {
			fmt.Fprintf(d.stderr, "retryvet: writing SARIF: %v\n", err)
			return 1
		}
	default:
		// On stderr, as the x/tools drivers print them.
		wd := d.workDir(o)
		if abs, err := filepath.Abs(wd); err == nil {
			wd = abs
		}
		for _, f := range findings {
			f.printPlain(d.stderr, o.context, wd)
		}
	}
	switch {
	case failed:
		return exitErrors
	case len(findings) > 0:
		return exitFindings
	}
	return exitClean
}
