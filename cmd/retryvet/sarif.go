package main

import (
	"flag"
	"fmt"
	"go/token"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report"
	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// srcRoot is the uriBaseId of every location: the module root of the
// packages named on the command line.
const srcRoot = "SRCROOT"

// runSARIF implements `retryvet -format sarif [flags] packages...`: it loads
// the packages as multichecker does (tests included unless -test=false),
// runs the analyzers with checker.Analyze and writes one SARIF 2.1.0 log to
// stdout. Locations are relative to the module root (uriBaseId SRCROOT).
// Exit codes follow x/tools: 0 clean, 3 findings, 1 load or analysis
// errors (still with a log, the errors as tool execution notifications),
// 2 bad flags.
func runSARIF(all []*analysis.Analyzer, args []string, dir string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("retryvet -format sarif", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tests := fs.Bool("test", true, "analyze test files too")
	registerP99(fs)
	registerValues(fs)
	enable := make(map[string]*triFlag)
	for _, a := range all {
		f := new(triFlag)
		enable[a.Name] = f
		fs.Var(f, a.Name, "enable "+a.Name+" analysis")
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: retryvet -format sarif [-NAME[=false]...] [-test=false] [-p99 DURATION] packages...\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 1
	}
	analyzers := selectAnalyzers(all, enable)

	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax | packages.NeedModule,
		Tests: *tests,
		Dir:   dir,
	}
	pkgs, err := packages.Load(cfg, fs.Args()...)
	if err == nil && len(pkgs) == 0 {
		err = fmt.Errorf("%s matched no packages", strings.Join(fs.Args(), " "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "retryvet: %v\n", err)
		return 1
	}

	var notes []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			notes = append(notes, e.Error())
		}
	})
	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		fmt.Fprintf(stderr, "retryvet: %v\n", err)
		return 1
	}
	for act := range graph.All() {
		if act.Err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", act.Analyzer.Name, act.Err))
		}
	}

	root := moduleRoot(pkgs, dir)
	log, n := buildSARIF(analyzers, graph, root, notes)
	if err := log.PrettyWrite(stdout); err != nil {
		fmt.Fprintf(stderr, "retryvet: writing SARIF: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout)
	for _, n := range notes {
		fmt.Fprintln(stderr, n)
	}
	switch {
	case len(notes) > 0:
		return 1
	case n > 0:
		return 3
	}
	return 0
}

// buildSARIF turns the root diagnostics of graph into a SARIF log and
// returns it with the number of results.
func buildSARIF(analyzers []*analysis.Analyzer, graph *checker.Graph, root string, notes []string) (*sarif.Report, int) {
	run := sarif.NewRunWithInformationURI("retryvet", "https://github.com/retryvet/retryvet")
	run.Tool.Driver.WithFullName("retryvet: retry and deadline analyzers for Go")
	run.WithOriginalUriBaseIds(map[string]sarif.ArtifactLocation{srcRoot: *sarif.NewArtifactLocation().WithURI(dirURI(root))})
	for _, a := range analyzers {
		summary, _, _ := strings.Cut(a.Doc, "\n")
		rule := run.AddRule(a.Name).
			WithName(a.Name).
			WithDescription(strings.TrimSpace(summary)).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(a.Doc)).
			WithMarkdownHelp(a.Doc).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel("warning"))
		if a.URL != "" {
			rule.WithHelpURI(a.URL)
		}
	}

	type key struct {
		analyzer, posn, message string
	}
	seen := make(map[key]bool)
	type finding struct {
		analyzer string
		fset     *token.FileSet
		diag     analysis.Diagnostic
		posn     token.Position
	}
	var findings []finding
	for _, act := range graph.Roots {
		if act.Err != nil {
			continue
		}
		for _, d := range act.Diagnostics {
			posn := act.Package.Fset.Position(d.Pos)
			k := key{act.Analyzer.Name, posn.String(), d.Message}
			if seen[k] {
				continue // the same file in p and p [p.test]
			}
			seen[k] = true
			findings = append(findings, finding{act.Analyzer.Name, act.Package.Fset, d, posn})
		}
	}
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i].posn, findings[j].posn
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return findings[i].analyzer < findings[j].analyzer
	})

	for _, f := range findings {
		res := run.CreateResultForRule(f.analyzer).
			WithLevel("warning").
			WithMessage(sarif.NewTextMessage(f.diag.Message)).
			AddLocation(location(f.fset, f.diag.Pos, f.diag.End, root, ""))
		for _, rel := range f.diag.Related {
			res.AddRelatedLocation(location(f.fset, rel.Pos, rel.End, root, rel.Message))
		}
		for _, fix := range f.diag.SuggestedFixes {
			if sf := sarifFix(f.fset, fix, root); sf != nil {
				res.AddFixe(sf)
			}
		}
	}

	inv := sarif.NewInvocation().WithExecutionSuccessful(len(notes) == 0)
	for _, n := range notes {
		inv.AddToolExecutionNotification(sarif.NewNotification().
			WithLevel("error").
			WithMessage(sarif.NewTextMessage(n)))
	}
	run.AddInvocation(inv)

	log := report.NewV210Report()
	log.Schema = "https://json.schemastore.org/sarif-2.1.0.json"
	log.AddRun(run)
	return log, len(findings)
}

// location is a SARIF location for [pos, end).
func location(fset *token.FileSet, pos, end token.Pos, root, message string) *sarif.Location {
	// Lines and columns for viewers (Go columns count bytes; SARIF's
	// default unit is UTF-16 code units, the same for ASCII lines), and the
	// exact byte range.
	start := fset.Position(pos)
	region := sarif.NewRegion().WithStartLine(max(start.Line, 1)).WithByteOffset(start.Offset)
	if start.Column > 0 {
		region.WithStartColumn(start.Column)
	}
	if end.IsValid() && end > pos {
		e := fset.Position(end)
		if e.Filename == start.Filename && e.Line >= start.Line {
			region.WithEndLine(e.Line).WithByteLength(e.Offset - start.Offset)
			if e.Column > 0 && (e.Line > start.Line || e.Column > start.Column) {
				region.WithEndColumn(e.Column)
			}
		}
	}
	loc := sarif.NewLocationWithPhysicalLocation(
		sarif.NewPhysicalLocation().
			WithArtifactLocation(artifact(start.Filename, root)).
			WithRegion(region))
	if message != "" {
		loc.WithMessage(sarif.NewTextMessage(message))
	}
	return loc
}

// sarifFix turns a suggested fix into a SARIF fix (replacements by
// line/column regions), or nil when it cannot be expressed.
func sarifFix(fset *token.FileSet, fix analysis.SuggestedFix, root string) *sarif.Fix {
	byFile := make(map[string]*sarif.ArtifactChange)
	var order []string
	for _, e := range fix.TextEdits {
		start := fset.Position(e.Pos)
		end := start
		if e.End.IsValid() {
			end = fset.Position(e.End)
		}
		if start.Filename == "" || start.Line == 0 {
			return nil
		}
		ch, ok := byFile[start.Filename]
		if !ok {
			ch = sarif.NewArtifactChange().WithArtifactLocation(artifact(start.Filename, root))
			byFile[start.Filename] = ch
			order = append(order, start.Filename)
		}
		if end.Filename != start.Filename || end.Offset < start.Offset {
			return nil
		}
		// Byte offsets: exact, whatever the characters on the line.
		region := sarif.NewRegion().
			WithByteOffset(start.Offset).
			WithByteLength(end.Offset - start.Offset)
		rep := sarif.NewReplacement().WithDeletedRegion(region)
		if len(e.NewText) > 0 {
			rep.WithInsertedContent(sarif.NewArtifactContent().WithText(string(e.NewText)))
		}
		ch.AddReplacement(rep)
	}
	if len(order) == 0 {
		return nil
	}
	sf := sarif.NewFix().WithDescription(sarif.NewTextMessage(fix.Message))
	for _, f := range order {
		sf.AddArtifactChange(byFile[f])
	}
	return sf
}

// artifact is the location of file: relative to root (uriBaseId SRCROOT)
// when it lies inside it, else an absolute file URI.
func artifact(file, root string) *sarif.ArtifactLocation {
	if root != "" {
		if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			return sarif.NewArtifactLocation().WithURI(filepath.ToSlash(rel)).WithURIBaseID(srcRoot)
		}
	}
	return sarif.NewArtifactLocation().WithURI(fileURI(file))
}

// moduleRoot is the directory of the main module of the root packages
// (the first one that has a module), else dir, else the working directory.
func moduleRoot(pkgs []*packages.Package, dir string) string {
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Dir != "" {
			return p.Module.Dir
		}
	}
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return abs
}

func fileURI(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // Windows drive letters
	}
	return u.String()
}

// dirURI is the file URI of a directory, with the trailing slash SARIF
// requires of a uriBaseId.
func dirURI(dir string) string {
	u := fileURI(dir)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// triFlag is an analyzer's enable flag, as in x/tools: -NAME runs only the
// named analyzers, -NAME=false runs all others.
type triFlag struct {
	set, value bool
}

func (f *triFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return fmt.Sprint(f.value)
}

func (f *triFlag) Set(s string) error {
	switch s {
	case "true", "1", "t", "T", "TRUE", "True":
		f.value = true
	case "false", "0", "f", "F", "FALSE", "False":
		f.value = false
	default:
		return fmt.Errorf("invalid boolean %q", s)
	}
	f.set = true
	return nil
}

func (f *triFlag) IsBoolFlag() bool { return true }

func selectAnalyzers(all []*analysis.Analyzer, enable map[string]*triFlag) []*analysis.Analyzer {
	anyTrue := false
	for _, f := range enable {
		if f.set && f.value {
			anyTrue = true
		}
	}
	var out []*analysis.Analyzer
	for _, a := range all {
		f := enable[a.Name]
		switch {
		case anyTrue && f.set && f.value:
			out = append(out, a)
		case !anyTrue && !(f.set && !f.value):
			out = append(out, a)
		}
	}
	return out
}
