package deadlinecensus

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Broken is a package the census could not analyse: it did not load,
// parse or type-check (Errors), or it imports one that did not (Via, the
// first such import). Its pipelines and entries are missing from the
// census; the rest of the program is still taken.
type Broken struct {
	PkgPath string
	Errors  []string // "file:line:col: message", relative to the working directory
	Via     string   // set when the package's own files are fine
}

// maxErrors is how many errors of one package are listed, as go build does.
const maxErrors = 10

// brokenPackages lists, in load order, the packages with errors and the
// user's own packages (own) left ill-typed by an import with errors. A
// package and its test variant are listed once; an error met in both is
// listed once.
func brokenPackages(pkgs []*packages.Package, own func(*packages.Package) bool) []*Broken {
	var out []*Broken
	byPath := map[string]*Broken{}
	seenErr := map[string]bool{}
	get := func(path string) *Broken {
		b := byPath[path]
		if b == nil {
			b = &Broken{PkgPath: path}
			byPath[path] = b
			out = append(out, b)
		}
		return b
	}
	wd, _ := os.Getwd()
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if len(p.Errors) == 0 {
			return
		}
		b := get(p.PkgPath)
		for _, e := range p.Errors {
			msg := relError(e, wd)
			if seenErr[msg] {
				continue
			}
			seenErr[msg] = true
			b.Errors = append(b.Errors, msg)
		}
	})
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if !p.IllTyped || len(p.Errors) > 0 || isTestMain(p) || !own(p) || byPath[p.PkgPath] != nil {
			return
		}
		for _, imp := range p.Imports {
			if imp.IllTyped {
				get(p.PkgPath).Via = imp.PkgPath
				return
			}
		}
	})
	return out
}

// relError renders a load error with its file relative to wd, as go vet
// prints it.
func relError(e packages.Error, wd string) string {
	pos, msg := e.Pos, e.Msg
	if pos == "" || pos == "-" {
		return msg
	}
	if wd != "" && filepath.IsAbs(pos) {
		if rel, err := filepath.Rel(wd, pos); err == nil && !strings.HasPrefix(rel, "..") {
			pos = rel
		}
	}
	return pos + ": " + msg
}

// reportBroken writes each broken package as go vet does: a "# package"
// line, then its errors.
func reportBroken(w io.Writer, broken []*Broken) {
	for _, b := range broken {
		fmt.Fprintf(w, "# %s\n", b.PkgPath)
		for i, e := range b.Errors {
			if i == maxErrors {
				fmt.Fprintf(w, "too many errors (%d more)\n", len(b.Errors)-maxErrors)
				break
			}
			fmt.Fprintln(w, e)
		}
		if b.Via != "" {
			fmt.Fprintf(w, "not analysed: it imports %s, which has errors\n", b.Via)
		}
	}
}
