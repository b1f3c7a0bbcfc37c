package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodTSV = "# repo: github.com/acme/llm\n" +
	"# commit: 0123456789abcdef0123456789abcdef01234567\n" +
	"# kind: llm-client\n" +
	"# packages: ./client/... ./internal/retry\n" +
	"# module: sdk\n" +
	"# fix: 89abcdef wait on the context while backing off\n" +
	"# note: free text\n" +
	"\n" +
	"retrytimeout\tsdk/client/do.go:40\tdefect\ttime.Sleep outlives a cancelled request\n" +
	"retrystatus\tsdk/client/do.go:52\tfine\t429 from this provider is only a rate limit\n" +
	"doubleretry\tsdk/internal/retry/retry.go:10\tmissed\tthe SDK default retries under this loop\n"

func TestParseJudgedGood(t *testing.T) {
	j, err := parseJudged("acme_llm.tsv", strings.NewReader(goodTSV))
	if err != nil {
		t.Fatal(err)
	}
	if j.Repo != "github.com/acme/llm" || j.Key() != "acme_llm" || j.Kind != "llm-client" || j.Module != "sdk" {
		t.Errorf("headers: %+v", j)
	}
	if got := strings.Join(j.Packages, " "); got != "./client/... ./internal/retry" {
		t.Errorf("packages = %q", got)
	}
	if len(j.Fixes) != 1 || len(j.Notes) != 1 {
		t.Errorf("fixes %q, notes %q", j.Fixes, j.Notes)
	}
	if len(j.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(j.Rows))
	}
	r := j.Rows[2]
	if r.Analyzer != "doubleretry" || r.File != "sdk/internal/retry/retry.go" || r.Line != 10 || r.Verdict != verdictMissed || r.Src != "acme_llm.tsv:11" {
		t.Errorf("row = %+v", r)
	}
}

// -test=false is the one flag a packages header may hold: for a pin whose
// test files do not compile, so that go vet does not skip the package.
func TestParseJudgedTestFalse(t *testing.T) {
	j, err := parseJudged("acme_llm.tsv", strings.NewReader(strings.Replace(goodTSV, "# packages: ./client/...", "# packages: -test=false ./client/...", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(j.Packages, " "); got != "-test=false ./client/... ./internal/retry" {
		t.Errorf("packages = %q", got)
	}
}

func TestParseJudgedMalformed(t *testing.T) {
	headers := strings.SplitAfter(goodTSV, "\n")[:5]
	head := strings.Join(headers, "")
	for _, tc := range []struct {
		name, text, want string
	}{
		{"three fields", head + "retrytimeout\ta.go:1\tdefect\n", "x.tsv:6: row has 3 tab-separated fields"},
		{"spaces not tabs", head + "retrytimeout a.go:1 defect why\n", "x.tsv:6: row has 1 tab-separated fields"},
		{"unknown analyzer", head + "retrytime\ta.go:1\tdefect\twhy\n", `x.tsv:6: unknown analyzer "retrytime"`},
		{"no line", head + "retrytimeout\ta.go\tdefect\twhy\n", `x.tsv:6: position "a.go" is not file:line`},
		{"line zero", head + "retrytimeout\ta.go:0\tdefect\twhy\n", `x.tsv:6: position "a.go:0"`},
		{"absolute file", head + "retrytimeout\t/x/a.go:3\tdefect\twhy\n", `x.tsv:6: file "/x/a.go" must be relative`},
		{"bad verdict", head + "retrytimeout\ta.go:3\tbug\twhy\n", `x.tsv:6: verdict "bug"`},
		{"no reason", head + "retrytimeout\ta.go:3\tfine\t \n", "x.tsv:6: row has no reason"},
		{"duplicate row", head + "retrytimeout\ta.go:3\tfine\tx\nretrytimeout\ta.go:3\tdefect\ty\n", "x.tsv:7: retrytimeout a.go:3 is already judged at x.tsv:6"},
		{"header after rows", head + "retrytimeout\ta.go:3\tfine\tx\n# note: late\n", `x.tsv:7: header "note" after the first row`},
		{"bad commit", strings.Replace(head, "0123456789abcdef0123456789abcdef01234567", "0123abc", 1), `x.tsv:2: commit "0123abc"`},
		{"unknown kind", strings.Replace(head, "llm-client", "chatbot", 1), `x.tsv:3: unknown kind "chatbot"`},
		{"bad repo", strings.Replace(head, "github.com/acme/llm", "acme/llm", 1), `x.tsv:1: repo "acme/llm"`},
		{"header twice", head + "# kind: sdk\n", `x.tsv:6: header "kind" given twice`},
		{"unknown header", head + "# owner: me\n", `x.tsv:6: unknown header "owner"`},
		{"not a header", head + "# just a comment\n", "x.tsv:6: header line is not '# key: value'"},
		{"row before headers", strings.Join(headers[:2], "") + "retrytimeout\ta.go:3\tfine\tx\n", `x.tsv:3: row before the "kind" header`},
		{"missing header", strings.Join(headers[:4], ""), `x.tsv: missing header "module"`},
		{"module outside", strings.Replace(head, "# module: sdk", "# module: ../sdk", 1), `x.tsv:5: module "../sdk"`},
		{"other flag", strings.Replace(head, "# packages: ./client/...", "# packages: -tags=x ./client/...", 1), `x.tsv:4: package pattern "-tags=x" must be relative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseJudged("x.tsv", strings.NewReader(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestReadJudgedDirFileName(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "acme_other.tsv"), []byte(goodTSV), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readJudgedDir(dir)
	if err == nil || !strings.Contains(err.Error(), "must be named acme_llm.tsv") {
		t.Errorf("error = %v, want the file name to be checked", err)
	}
}
