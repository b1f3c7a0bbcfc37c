// Package directive reads the //retryvet: source directives and applies
// //retryvet:ignore to an analyzer's diagnostics.
//
// The directives (see DESIGN.md):
//
//	//retryvet:p99 40s              in a function's doc comment
//	//retryvet:pipeline             in a function's doc comment
//	//retryvet:ignore NAME reason   on the line above a finding, or at its end
//
// An ignore covers its own line and the next, so both placements work.
// A malformed directive is itself a diagnostic at the directive. Each
// analyzer reports the malformed ignores that name it and the ignores for
// it that silenced nothing; malformed p99/pipeline directives and unknown
// verbs are reported by the Owner analyzer, so each appears once.
package directive

import (
	"fmt"
	"go/ast"
	"go/token"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
)

// Prefix starts every directive.
const Prefix = "//retryvet:"

// Owner is the analyzer that reports malformed directives that name no
// analyzer (p99, pipeline, unknown verbs).
const Owner = "deadlinecensus"

// Names are the analyzers an ignore directive may name.
var Names = []string{"deadlinecensus", "doubleretry", "retrytimeout", "retrystatus", "expiredctx"}

// Kind of directive.
type Kind int

const (
	P99 Kind = iota + 1
	Pipeline
	Ignore
)

// A Directive is one well-formed //retryvet: comment.
type Directive struct {
	Kind      Kind
	Pos       token.Pos
	Line      int           // line of the comment
	File      string        // file name of the comment
	P99       time.Duration // for P99
	Analyzers []string      // for Ignore
	Reason    string        // for Ignore
}

// A Problem is a malformed directive.
type Problem struct {
	Pos     token.Pos
	Owner   string // analyzer that reports it
	Message string
}

// Set holds a package's directives.
type Set struct {
	Ignores  []*Directive
	Funcs    map[*ast.FuncDecl][]*Directive // p99 and pipeline, by the function whose doc holds them
	Problems []Problem
}

// Parse reads the directives of a package's files.
func Parse(fset *token.FileSet, files []*ast.File) *Set {
	s := &Set{Funcs: make(map[*ast.FuncDecl][]*Directive)}
	for _, f := range files {
		docOf := make(map[*ast.Comment]*ast.FuncDecl)
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Doc != nil {
				for _, c := range fd.Doc.List {
					docOf[c] = fd
				}
			}
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if !strings.HasPrefix(c.Text, Prefix) {
					continue
				}
				s.parseOne(fset, c, docOf[c])
			}
		}
	}
	return s
}

func (s *Set) parseOne(fset *token.FileSet, c *ast.Comment, fn *ast.FuncDecl) {
	text := strings.TrimPrefix(c.Text, Prefix)
	// A trailing comment ends the directive: //retryvet:ignore X reason // note
	if i := strings.Index(text, " //"); i >= 0 {
		text = text[:i]
	}
	fields := strings.Fields(text)
	verb := ""
	if len(fields) > 0 {
		verb = fields[0]
	}
	posn := fset.Position(c.Pos())
	d := &Directive{Pos: c.Pos(), Line: posn.Line, File: posn.Filename}
	bad := func(owner, format string, args ...any) {
		s.Problems = append(s.Problems, Problem{Pos: c.Pos(), Owner: owner, Message: "malformed directive: " + fmt.Sprintf(format, args...)})
	}
	switch verb {
	case "p99":
		if len(fields) != 2 {
			bad(Owner, "want //retryvet:p99 DURATION, e.g. //retryvet:p99 40s")
			return
		}
		dur, err := time.ParseDuration(fields[1])
		if err != nil || dur <= 0 {
			bad(Owner, "%q is not a positive duration (time.ParseDuration syntax, e.g. 40s)", fields[1])
			return
		}
		if fn == nil {
			bad(Owner, "//retryvet:p99 belongs in a function's doc comment")
			return
		}
		d.Kind, d.P99 = P99, dur
		s.Funcs[fn] = append(s.Funcs[fn], d)
	case "pipeline":
		if len(fields) != 1 {
			bad(Owner, "//retryvet:pipeline takes no arguments")
			return
		}
		if fn == nil {
			bad(Owner, "//retryvet:pipeline belongs in a function's doc comment")
			return
		}
		d.Kind = Pipeline
		s.Funcs[fn] = append(s.Funcs[fn], d)
	case "ignore":
		if len(fields) < 2 {
			bad(Owner, "want //retryvet:ignore ANALYZER reason")
			return
		}
		names := strings.Split(fields[1], ",")
		for _, n := range names {
			if !known(n) {
				bad(Owner, "unknown analyzer %q in //retryvet:ignore (known: %s)", n, strings.Join(Names, ", "))
				return
			}
		}
		if len(fields) < 3 {
			bad(names[0], "//retryvet:ignore %s needs a reason", fields[1])
			return
		}
		d.Kind, d.Analyzers, d.Reason = Ignore, names, strings.Join(fields[2:], " ")
		s.Ignores = append(s.Ignores, d)
	default:
		bad(Owner, "unknown directive %q (known: p99, pipeline, ignore)", verb)
	}
}

func known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// P99 returns the p99 declared in fn's doc comment, if any.
func (s *Set) P99(fn *ast.FuncDecl) (time.Duration, token.Pos, bool) {
	for _, d := range s.Funcs[fn] {
		if d.Kind == P99 {
			return d.P99, d.Pos, true
		}
	}
	return 0, token.NoPos, false
}

// IsPipeline reports whether fn's doc comment marks it as a pipeline.
func (s *Set) IsPipeline(fn *ast.FuncDecl) bool {
	for _, d := range s.Funcs[fn] {
		if d.Kind == Pipeline {
			return true
		}
	}
	return false
}

// Filter wraps an analyzer's run function so that its diagnostics obey
// //retryvet:ignore, unused ignores for it are reported, and malformed
// directives it owns are reported.
func Filter(name string, run func(*analysis.Pass) (any, error)) func(*analysis.Pass) (any, error) {
	return func(pass *analysis.Pass) (any, error) {
		set := Parse(pass.Fset, pass.Files)
		var mine []*Directive
		for _, d := range set.Ignores {
			for _, n := range d.Analyzers {
				if n == name {
					mine = append(mine, d)
				}
			}
		}
		used := make(map[*Directive]bool)
		inner := *pass
		inner.Report = func(diag analysis.Diagnostic) {
			if len(mine) > 0 {
				p := pass.Fset.Position(diag.Pos)
				for _, d := range mine {
					if d.File == p.Filename && (d.Line == p.Line || d.Line+1 == p.Line) {
						used[d] = true
						return
					}
				}
			}
			pass.Report(diag)
		}
		res, err := run(&inner)
		if err != nil {
			return res, err
		}
		for _, d := range mine {
			if !used[d] {
				pass.Report(analysis.Diagnostic{Pos: d.Pos, Message: fmt.Sprintf("//retryvet:ignore %s silences nothing here: remove it", name)})
			}
		}
		for _, p := range set.Problems {
			if p.Owner == name {
				pass.Report(analysis.Diagnostic{Pos: p.Pos, Message: p.Message})
			}
		}
		return res, nil
	}
}
