package main

import (
	"os"
	"strings"
	"testing"

	"github.com/retryvet/retryvet/analyzers"
)

// TestExitTableInREADME: the README's exit-code table is exitCodes, row
// for row, and `retryvet help` prints every row of both modes.
func TestExitTableInREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "\n## Exit codes\n")
	if !ok {
		t.Fatal("README has no ## Exit codes section")
	}
	var rows [][]string
	for _, line := range strings.Split(sec, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| code ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		rows = append(rows, cells)
	}
	if len(rows) != len(exitCodes) {
		t.Fatalf("README table has %d rows, exitCodes %d", len(rows), len(exitCodes))
	}
	for i, e := range exitCodes {
		want := []string{e.code, e.analyzers, e.census}
		if strings.Join(rows[i], "|") != strings.Join(want, "|") {
			t.Errorf("README row %d = %q, want %q", i, rows[i], want)
		}
	}

	var out, errb strings.Builder
	help(analyzers.All(), nil, &out, &errb)
	for _, e := range exitCodes {
		for _, what := range []string{e.analyzers, e.census} {
			if what != "-" && !strings.Contains(out.String(), e.code+strings.Repeat(" ", 7-len(e.code))+what) {
				t.Errorf("retryvet help lacks exit %s: %q", e.code, what)
			}
		}
	}
}
