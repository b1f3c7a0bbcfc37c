package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// vetTree is the x/tools -json tree, keyed by package path (DESIGN.md):
// package -> analyzer -> findings, or {"error": ...} in place of the
// findings. go vet analyses a package once, as its test variant where it
// has one ("p [p.test]"), so each path has one entry.
type vetTree map[string]map[string]json.RawMessage

// vetDiag is one finding in the x/tools JSON schema (driverutil.JSONDiagnostic).
type vetDiag struct {
	Category       string       `json:"category,omitempty"`
	Posn           string       `json:"posn"`
	End            string       `json:"end"`
	Message        string       `json:"message"`
	SuggestedFixes []vetFix     `json:"suggested_fixes,omitempty"`
	Related        []vetRelated `json:"related,omitempty"`
}

type vetFix struct {
	Message string    `json:"message"`
	Edits   []vetEdit `json:"edits"`
}

// vetEdit replaces bytes [Start, End) of Filename with New.
type vetEdit struct {
	Filename string `json:"filename"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	New      string `json:"new"`
}

type vetRelated struct {
	Posn    string `json:"posn"`
	End     string `json:"end"`
	Message string `json:"message"`
}

// decode adds the JSON trees go vet printed on stdout (one per unit,
// concatenated) to t.
func (t vetTree) decode(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var unit map[string]map[string]json.RawMessage
		if err := dec.Decode(&unit); err != nil {
			return err
		}
		for id, byAnalyzer := range unit {
			path := pkgPath(id)
			if t[path] == nil {
				t[path] = map[string]json.RawMessage{}
			}
			for a, raw := range byAnalyzer {
				t[path][a] = raw
			}
		}
	}
	return nil
}

// hasErrors reports whether an analyzer failed on some package.
func (t vetTree) hasErrors() bool {
	for _, byAnalyzer := range t {
		for _, raw := range byAnalyzer {
			if isErrorObject(raw) {
				return true
			}
		}
	}
	return false
}

func isErrorObject(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '{'
}

// print writes the tree as the x/tools drivers do (tab-indented, one
// object, packages and analyzers in sorted order).
func (t vetTree) print(w io.Writer) error {
	data, err := json.MarshalIndent(t, "", "\t")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// A finding is one diagnostic of one analyzer on one package.
type finding struct {
	pkg, analyzer string
	diag          vetDiag
	posn          position
}

// findings returns every finding of the tree in file, line, column and
// analyzer order, and writes analyzer errors to errs.
func (t vetTree) findings(errs io.Writer) []finding {
	var out []finding
	for _, pkg := range sortedKeys(t) {
		for _, a := range sortedKeys(t[pkg]) {
			raw := t[pkg][a]
			if isErrorObject(raw) {
				var e struct {
					Err string `json:"error"`
				}
				_ = json.Unmarshal(raw, &e)
				fmt.Fprintf(errs, "%s: %s: %s\n", pkg, a, e.Err)
				continue
			}
			var diags []vetDiag
			if err := json.Unmarshal(raw, &diags); err != nil {
				fmt.Fprintf(errs, "%s: %s: malformed findings: %v\n", pkg, a, err)
				continue
			}
			for _, d := range diags {
				out = append(out, finding{pkg, a, d, parsePosition(d.Posn)})
			}
		}
	}
	slices.SortStableFunc(out, func(x, y finding) int {
		return cmp.Or(
			strings.Compare(x.posn.file, y.posn.file),
			cmp.Compare(x.posn.line, y.posn.line),
			cmp.Compare(x.posn.col, y.posn.col),
			strings.Compare(x.analyzer, y.analyzer),
			strings.Compare(x.diag.Message, y.diag.Message))
	})
	return out
}

// relPosn is posn ("file:line:col") with its file relative to wd when the
// file is below wd.
func relPosn(posn, wd string) string {
	if wd == "" || !filepath.IsAbs(posn) {
		return posn
	}
	p := parsePosition(posn)
	rel, err := filepath.Rel(wd, p.file)
	if err != nil || !filepath.IsLocal(rel) {
		return posn
	}
	return rel + strings.TrimPrefix(posn, p.file)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// A position is a parsed "file:line:col" (line and col 0 when absent).
type position struct {
	file      string
	line, col int
}

func parsePosition(s string) position {
	p := position{file: s}
	rest, c, ok := cutLastNumber(s)
	if !ok {
		return p
	}
	rest2, l, ok := cutLastNumber(rest)
	if !ok {
		return position{file: rest, line: c}
	}
	return position{file: rest2, line: l, col: c}
}

func cutLastNumber(s string) (string, int, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return s, 0, false
	}
	return s[:i], n, true
}

// dropFixable removes the findings that carry a suggested fix.
func (t vetTree) dropFixable() {
	for _, byAnalyzer := range t {
		for a, raw := range byAnalyzer {
			var diags []vetDiag
			if isErrorObject(raw) || json.Unmarshal(raw, &diags) != nil {
				continue
			}
			kept := slices.DeleteFunc(diags, func(d vetDiag) bool { return len(d.SuggestedFixes) > 0 })
			byAnalyzer[a], _ = json.Marshal(kept)
		}
	}
}

// printPlain prints a finding as driverutil.PrintPlain does: the
// position and message, then each related position with a tab before its
// message; with contextLines >= 0, the lines around each. The finding's
// line ends with its analyzer's name, " (doubleretry)", the name
// //retryvet:ignore takes (staticcheck and golangci-lint end a line so);
// positions are relative to wd where they are below it, as go vet prints
// them.
func (f finding) printPlain(w io.Writer, contextLines int, wd string) {
	first := true
	print := func(posn, end, message string) {
		shown := relPosn(posn, wd)
		if first {
			fmt.Fprintf(w, "%s: %s (%s)\n", shown, message, f.analyzer)
			first = false
		} else {
			fmt.Fprintf(w, "%s: %s\n", shown, message)
		}
		if contextLines < 0 {
			return
		}
		p, e := parsePosition(posn), parsePosition(end)
		if e.line == 0 {
			e = p
		}
		data, _ := os.ReadFile(p.file)
		lines := strings.Split(string(data), "\n")
		for i := p.line - contextLines; i <= e.line+contextLines; i++ {
			if 1 <= i && i <= len(lines) {
				fmt.Fprintf(w, "%d\t%s\n", i, lines[i-1])
			}
		}
	}
	print(f.diag.Posn, f.diag.End, f.diag.Message)
	for _, r := range f.diag.Related {
		print(r.Posn, r.End, "\t"+r.Message)
	}
}
