package main

import (
	"strings"
	"testing"
)

// The shape go vet -json prints on stderr: a header per package (and per
// test variant), then indented JSON; build errors are plain text.
const vetOutput = `go: downloading example.com/dep v1.0.0
{}
# example.com/m/client
{
	"example.com/m/client": {
		"retrytimeout": [
			{
				"posn": "/repo/client/do.go:40:3",
				"message": "sleep ignores ctx"
			}
		]
	}
}
# example.com/m/client [example.com/m/client.test]
{
	"example.com/m/client [example.com/m/client.test]": {
		"retrytimeout": [
			{
				"posn": "/repo/client/do.go:40:3",
				"message": "sleep ignores ctx"
			}
		],
		"doubleretry": {
			"error": "analysis failed: boom"
		}
	}
}
{"example.com/m/client": {"retrystatus": [{"posn": "/elsewhere/x.go:7:1", "message": "far"}]}}
# example.com/m/broken
broken/b.go:3:1: undefined: x
`

func TestParseVetJSON(t *testing.T) {
	fs, errs, answered := parseVetJSON([]byte(vetOutput), "/repo")
	if answered != 4 {
		t.Errorf("answered = %d, want 4 (a package with nothing to say prints {})", answered)
	}
	if _, _, n := parseVetJSON([]byte("# example.com/m/broken\nbroken/b.go:3:1: undefined: x\n"), "/repo"); n != 0 {
		t.Errorf("a run where only build errors came back answered %d packages, want 0", n)
	}
	want := []finding{
		{Analyzer: "retrystatus", File: "/elsewhere/x.go", Line: 7, Col: 1, Message: "far"},
		{Analyzer: "retrytimeout", File: "client/do.go", Line: 40, Col: 3, Message: "sleep ignores ctx"},
	}
	if len(fs) != len(want) {
		t.Fatalf("findings = %+v, want %+v", fs, want)
	}
	for i := range want {
		if fs[i] != want[i] {
			t.Errorf("finding %d = %+v, want %+v", i, fs[i], want[i])
		}
	}
	if len(errs) != 2 {
		t.Errorf("errors = %q, want 2 (progress lines of the go command are not errors)", errs)
	}
	joined := strings.Join(errs, "\n")
	for _, w := range []string{"doubleretry: analysis failed: boom", "example.com/m/broken: broken/b.go:3:1: undefined: x"} {
		if !strings.Contains(joined, w) {
			t.Errorf("errors %q lack %q", errs, w)
		}
	}
}

func TestSplitPosn(t *testing.T) {
	for _, tc := range []struct {
		posn, file string
		line, col  int
	}{
		{"/repo/a/b.go:12:3", "a/b.go", 12, 3},
		{"/repo/a/b.go:12", "a/b.go", 12, 0},
		{"/repository/b.go:1:1", "/repository/b.go", 1, 1},
		{"-", "-", 0, 0},
	} {
		f, l, c := splitPosn(tc.posn, "/repo")
		if f != tc.file || l != tc.line || c != tc.col {
			t.Errorf("splitPosn(%q) = %q %d %d, want %q %d %d", tc.posn, f, l, c, tc.file, tc.line, tc.col)
		}
	}
}
