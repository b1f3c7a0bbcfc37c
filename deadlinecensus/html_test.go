package deadlinecensus

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

func htmlOf(t *testing.T, c *Census, opts WriteOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, c, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestHTMLStructure checks the page without a browser: self-contained, one
// table per pipeline with a row per production path, tests collapsed
// apart, every path expandable with its positions, the verdict colours
// and the reasons.
func TestHTMLStructure(t *testing.T) {
	c := theCensus(t)
	page := htmlOf(t, c, WriteOptions{})
	for _, bad := range []string{"http://", "https://", "<link", " src=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page is not self-contained: it has %q", bad)
		}
	}
	if n := strings.Count(page, `<section class="pipeline"`); n != len(c.Pipelines) {
		t.Errorf("%d pipeline sections, want %d", n, len(c.Pipelines))
	}
	s := Summarize(c)
	prodRows := strings.Count(page, `<tr class="v-`)
	if prodRows != s.Paths+s.TestPaths {
		t.Errorf("%d rows, want %d (paths) + %d (tests)", prodRows, s.Paths, s.TestPaths)
	}
	if n := strings.Count(page, `<details class="path"`); n != prodRows {
		t.Errorf("%d expandable paths for %d rows", n, prodRows)
	}
	for _, want := range []string{
		`<li>4 pipelines, 22 entry paths (and 2 test paths, apart)</li>`,
		`<tr class="v-no">`, `<td class="v-no" data-sort="0">no</td>`, `<td class="v-yes" data-sort="2">yes</td>`,
		`<li><code>queue.(*Worker).handle</code> <span class="pos">queue/worker.go:28:18</span></li>`,
		`<details class="tests">`,
		`<summary>Tests: 2 test entry paths, shortest deadline 5s (llm.TestCompleteShortDeadline)`,
		`<li>p99 unknown: no //retryvet:p99 on cases.Deliver or on the call it retries <span class="pos">(coversP99)</span>. <span class="suggest">To decide it: declare //retryvet:p99 on cases.Deliver or set it in .retryvet.yml</span></li>`,
		`<th data-type="num">deadline</th>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(htmlOf(t, c, WriteOptions{Tests: true}), `<details class="tests" open>`) {
		t.Error("-tests does not open the tests' table")
	}
}

// TestHTMLEscapes: names and reasons are text, never markup.
func TestHTMLEscapes(t *testing.T) {
	evil := `<script>alert("x")</script>`
	c := &Census{Limits: DefaultLimits, Pipelines: []*Pipeline{{
		Function: "example.com/x.F" + evil, Position: "x.go:1:1",
		Req: deadline.Requirement{Retry: true, Known: true, Required: time.Minute, Derivation: evil},
		Callers: []*Row{{
			Entry: "example.com/x.G" + evil, Kind: "exported", Path: []string{"example.com/x.G" + evil, "example.com/x.F"}, PathPos: []string{"x.go:2:1", "x.go:1:1"},
			D: deadline.D{Kind: deadline.Known, D: time.Second}, CanStart: retrymodel.No, P99: retrymodel.Unknown,
			Reasons: []Reason{{About: []string{"coversP99"}, Code: codeP99, Text: evil, Suggestion: evil}},
		}},
	}}}
	page := htmlOf(t, c, WriteOptions{})
	if strings.Count(page, "<script>") != 1 || strings.Contains(page, `alert("x")`) {
		t.Errorf("unescaped markup in the page:\n%s", page)
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Errorf("the name is not shown escaped")
	}
}

// TestHTMLBrowser opens the page in headless Chromium (Debian's chromium
// package) with #selftest: the page's own script expands a path by
// clicking it, checks its steps and positions, sorts a table by clicking
// its headers and checks the order, and writes the result into the DOM,
// which --dump-dom prints. Guarded by RETRYVET_BROWSER=1 (.ci/run sets
// it, installing chromium if missing).
func TestHTMLBrowser(t *testing.T) {
	if os.Getenv("RETRYVET_BROWSER") != "1" {
		t.Skip("set RETRYVET_BROWSER=1 to test the HTML report in headless Chromium (.ci/run does)")
	}
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Fatal("RETRYVET_BROWSER=1 but no chromium on PATH (apt-get install chromium)")
	}
	c := theCensus(t)
	file := filepath.Join(t.TempDir(), "census.html")
	if err := os.WriteFile(file, []byte(htmlOf(t, c, WriteOptions{})), 0o644); err != nil {
		t.Fatal(err)
	}
	dump := func(url string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--user-data-dir="+t.TempDir(), "--virtual-time-budget=5000", "--dump-dom", url)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", bin, err, errb.String())
		}
		return out.String()
	}
	dom := dump("file://" + file + "#selftest")
	m := regexp.MustCompile(`(?s)<pre id="selftest-result" data-result="(\w+)">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no self-test result in the page (did the script run?):\n%s", dom[max(0, len(dom)-2000):])
	}
	t.Logf("self-test in %s:\n%s", bin, m[2])
	if m[1] != "pass" {
		t.Errorf("the page's self-test failed:\n%s", m[2])
	}
	s := Summarize(c)
	if !strings.Contains(m[2], "rows "+itoa(s.Paths+s.TestPaths)) {
		t.Errorf("the browser saw other rows than the census has (%d):\n%s", s.Paths+s.TestPaths, m[2])
	}
	for _, want := range []string{"clicking the path's summary expands it", "clicking deadline sorts ascending", "clicking again sorts descending"} {
		if !strings.Contains(m[2], "ok   "+want) {
			t.Errorf("self-test did not check %q:\n%s", want, m[2])
		}
	}
	// Without the fragment the page runs no test and stays as it was.
	if dom := dump("file://" + file); strings.Contains(dom, `<pre id="selftest-result"`) || strings.Contains(dom, `aria-sort="`) || regexp.MustCompile(`<details class="path"[^>]* open`).MatchString(dom) {
		t.Error("the page changed without #selftest")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
