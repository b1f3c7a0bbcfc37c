package main

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report"
	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"golang.org/x/tools/go/analysis"
)

// srcRoot is the uriBaseId of every location: the module root of the
// packages named on the command line.
const srcRoot = "SRCROOT"

// writeSARIF writes the findings as one SARIF 2.1.0 log on stdout, with
// the errors of res as tool execution notifications.
func (d *driver) writeSARIF(findings []finding, res *vetResult) error {
	notes := slices.Clone(res.errors)
	for _, pkg := range sortedKeys(res.tree) {
		for _, a := range sortedKeys(res.tree[pkg]) {
			if raw := res.tree[pkg][a]; isErrorObject(raw) {
				notes = append(notes, fmt.Sprintf("%s: %s: %s", pkg, a, raw))
			}
		}
	}
	log := buildSARIF(d.analyzers, findings, d.moduleRoot(), notes)
	if err := log.PrettyWrite(d.stdout); err != nil {
		return err
	}
	_, err := fmt.Fprintln(d.stdout)
	return err
}

// moduleRoot is the directory of the main module (the first, in a
// workspace), else the working directory.
func (d *driver) moduleRoot() string {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}")
	cmd.Dir = d.dir
	if out, err := cmd.Output(); err == nil {
		if first, _, _ := strings.Cut(string(out), "\n"); strings.TrimSpace(first) != "" {
			return strings.TrimSpace(first)
		}
	}
	dir := d.dir
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return abs
}

// buildSARIF turns the findings into a SARIF log: one rule per analyzer,
// one result per finding.
func buildSARIF(analyzers []*analysis.Analyzer, findings []finding, root string, notes []string) *sarif.Report {
	run := sarif.NewRunWithInformationURI("retryvet", "https://github.com/retryvet/retryvet")
	run.Tool.Driver.WithFullName("retryvet: retry and deadline analyzers for Go").WithVersion(version())
	if v := version(); v != "devel" {
		run.Tool.Driver.WithSemanticVersion(strings.TrimPrefix(v, "v"))
	}
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
	files := fileCache{}
	for _, f := range findings {
		res := run.CreateResultForRule(f.analyzer).
			WithLevel("warning").
			WithMessage(sarif.NewTextMessage(f.diag.Message)).
			AddLocation(files.location(f.diag.Posn, f.diag.End, root, ""))
		for _, rel := range f.diag.Related {
			res.AddRelatedLocation(files.location(rel.Posn, rel.End, root, rel.Message))
		}
		for _, fix := range f.diag.SuggestedFixes {
			if sf := sarifFix(fix, root); sf != nil {
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
	return log
}

// fileCache holds the files whose byte offsets a location needs (vet's
// JSON gives line and column; SARIF's byte ranges are exact).
type fileCache map[string][]int // file -> offset of each line's start

func (c fileCache) offset(p position) (int, bool) {
	starts, ok := c[p.file]
	if !ok {
		data, err := os.ReadFile(p.file)
		if err == nil {
			starts = []int{0}
			for i, b := range data {
				if b == '\n' {
					starts = append(starts, i+1)
				}
			}
		}
		c[p.file] = starts
	}
	if p.line < 1 || p.line > len(starts) || p.col < 1 {
		return 0, false
	}
	return starts[p.line-1] + p.col - 1, true
}

// location is a SARIF location for the range posn-end ("file:line:col").
func (c fileCache) location(posn, end, root, message string) *sarif.Location {
	// Lines and columns for viewers (Go columns count bytes; SARIF's
	// default unit is UTF-16 code units, the same for ASCII lines), and the
	// exact byte range.
	start := parsePosition(posn)
	region := sarif.NewRegion().WithStartLine(max(start.line, 1))
	startOff, haveStart := c.offset(start)
	if haveStart {
		region.WithByteOffset(startOff)
	}
	if start.col > 0 {
		region.WithStartColumn(start.col)
	}
	if e := parsePosition(end); e.file == start.file && e.line >= start.line && (e.line > start.line || e.col > start.col) {
		region.WithEndLine(e.line)
		if e.col > 0 {
			region.WithEndColumn(e.col)
		}
		if endOff, ok := c.offset(e); ok && haveStart {
			region.WithByteLength(endOff - startOff)
		}
	}
	loc := sarif.NewLocationWithPhysicalLocation(
		sarif.NewPhysicalLocation().
			WithArtifactLocation(artifact(start.file, root)).
			WithRegion(region))
	if message != "" {
		loc.WithMessage(sarif.NewTextMessage(message))
	}
	return loc
}

// sarifFix turns a suggested fix into a SARIF fix (byte-range
// replacements), or nil when it cannot be expressed.
func sarifFix(fix vetFix, root string) *sarif.Fix {
	byFile := make(map[string]*sarif.ArtifactChange)
	var order []string
	for _, e := range fix.Edits {
		if e.Filename == "" || e.End < e.Start {
			return nil
		}
		ch, ok := byFile[e.Filename]
		if !ok {
			ch = sarif.NewArtifactChange().WithArtifactLocation(artifact(e.Filename, root))
			byFile[e.Filename] = ch
			order = append(order, e.Filename)
		}
		// Byte offsets: exact, whatever the characters on the line.
		region := sarif.NewRegion().
			WithByteOffset(e.Start).
			WithByteLength(e.End - e.Start)
		rep := sarif.NewReplacement().WithDeletedRegion(region)
		if e.New != "" {
			rep.WithInsertedContent(sarif.NewArtifactContent().WithText(e.New))
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
