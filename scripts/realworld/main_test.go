package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSavedFindings runs the command on saved findings: no checkout, no go vet.
func TestRunSavedFindings(t *testing.T) {
	judged, saved := t.TempDir(), t.TempDir()
	other := strings.NewReplacer("acme/llm", "acme/other", "0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef").Replace(goodTSV)
	third := strings.Replace(goodTSV, "acme/llm", "acme/third", 1)
	for name, text := range map[string]string{"acme_llm.tsv": goodTSV, "acme_other.tsv": other, "acme_third.tsv": third} {
		if err := os.WriteFile(filepath.Join(judged, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := &result{Repo: "github.com/acme/llm", Commit: "0123456789abcdef0123456789abcdef01234567",
		Findings: []finding{{Analyzer: "retrytimeout", File: "sdk/client/do.go", Line: 40, Message: "sleep ignores ctx"}}}
	if err := saveResult(saved, "acme_llm", res); err != nil {
		t.Fatal(err)
	}
	stale := *res
	stale.Repo, stale.Commit = "github.com/acme/other", "0123456789abcdef0123456789abcdef01234567" // not the pinned commit
	if err := saveResult(saved, "acme_other", &stale); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"-judged", judged, "-findings", saved}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"repositories analysed: 1, skipped: 1, failed: 1",
		"acme_third: no saved findings in",
		"acme_other: saved findings are for commit 0123456789abcdef0123456789abcdef01234567, the judged file pins 89abcdef",
		"defects not found (repo, analyzer, file:line, verdict, reason): 1\n  acme_llm\tdoubleretry\t",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	stdout.Reset()
	if code := run([]string{"-judged", judged, "-findings", saved, "-repos", "acme/llm"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout.String(), "repositories analysed: 1, skipped: 0, failed: 0") {
		t.Errorf("-repos did not limit the run:\n%s", stdout.String())
	}
	if code := run([]string{"-judged", judged, "-repos", "acme/none"}, &stdout, &stderr); code != 2 {
		t.Errorf("-repos with an unknown repository: exit %d, want 2", code)
	}
}
