// Package analysisdoc turns an analyzer's doc.go package comment into its
// Doc string, so the documentation lives in one place (as in x/tools).
package analysisdoc

import (
	"go/parser"
	"go/token"
	"strings"
)

// Extract returns the section of the package comment in src (the text of
// doc.go) that starts with the heading "# Analyzer name", without the
// heading and the "name:" that starts its summary line.
func Extract(src, name string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		panic("analysisdoc: doc.go of " + name + " has no package comment")
	}
	text := f.Doc.Text()
	heading := "# Analyzer " + name
	i := strings.Index(text, heading)
	if i < 0 {
		panic("analysisdoc: doc.go has no heading " + heading)
	}
	text = text[i+len(heading):]
	if j := strings.Index(text, "\n# Analyzer "); j >= 0 {
		text = text[:j]
	}
	text = strings.TrimSpace(text)
	// As x/tools: the heading is followed by "name: summary", and the name
	// is dropped (help prints it already).
	rest := strings.TrimPrefix(text, name+":")
	if rest == text {
		panic("analysisdoc: '# Analyzer " + name + "' is not followed by '" + name + ": summary'")
	}
	return strings.TrimSpace(rest)
}

// URL is the README anchor of an analyzer.
func URL(name string) string { return "https://github.com/retryvet/retryvet#" + name }
