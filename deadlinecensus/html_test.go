package deadlinecensus

import (
	"bytes"
	"context"
	"html"
	"net/url"
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
	g := gatedCensus(t, c)
	page := htmlOf(t, c, WriteOptions{gate: g, baseline: "census.baseline"})
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	const word = "queue.(*Worker)"
	wantShown := rowsHolding(page, word)
	if wantShown == 0 || wantShown == strings.Count(page, `<tr class="v-`) {
		t.Fatalf("the filter word %q is in %d rows: the test would test nothing", word, wantShown)
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
	dom := dump("file://" + file + "#selftest&filter=" + url.QueryEscape(word))
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
	for _, want := range []string{"clicking the path's summary expands it", "clicking deadline sorts ascending", "clicking again sorts descending",
		"the gate's verdict is shown", "a failing row says what to do", "the page says what to do on a red row",
		"the filter shows exactly the rows holding", "red rows only keeps red rows", "an empty filter shows every row again"} {
		if !strings.Contains(m[2], "ok   "+want) {
			t.Errorf("self-test did not check %q:\n%s", want, m[2])
		}
	}
	// What the browser saw, against the census and the gate.
	total := s.Paths + s.TestPaths
	for _, want := range []string{
		"verdict gate: failed",
		"reasons " + itoa(g.Accepted),
		"filter " + strconv.Quote(word) + " shows " + itoa(wantShown) + " of " + itoa(total),
		"ok   a reason is shown: the broker redelivers",
	} {
		if !strings.Contains(m[2], want) {
			t.Errorf("the browser did not see %q:\n%s", want, m[2])
		}
	}
	// Without the fragment the page runs no test and stays as it was.
	if dom := dump("file://" + file); strings.Contains(dom, `<pre id="selftest-result"`) || strings.Contains(dom, `aria-sort="`) || regexp.MustCompile(`<details class="path"[^>]* open`).MatchString(dom) {
		t.Error("the page changed without #selftest")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// gatedCensus gates the census against a baseline of its own rows in
// which the queue's short deadline is accepted with a reason: the other
// red rows fail.
func gatedCensus(t *testing.T, c *Census) *gateResult {
	t.Helper()
	lines := strings.Split(string(formatBaseline(c, rowsOf(c, false), nil)), "\n")
	for i, l := range lines {
		if strings.Contains(l, "| example.com/t/queue.(*Worker).Run ") {
			lines[i] = l + " the broker redelivers; tracked in #42"
		}
	}
	base, err := parseBaseline("census.baseline", []byte(strings.Join(lines, "\n")), false)
	if err != nil {
		t.Fatal(err)
	}
	g := runGate(c, base, false)
	if g.Passed() || g.Accepted != 1 {
		t.Fatalf("the gate passes or accepts %d rows: %q", g.Accepted, g.Fails)
	}
	return g
}

// rowsHolding counts the page's table rows whose text holds word, as the
// filter matches it (case-insensitive, in any cell).
func rowsHolding(page, word string) int {
	n := 0
	for _, tr := range regexp.MustCompile(`(?s)<tr class="v-.*?</tr>`).FindAllString(page, -1) {
		text := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(tr, ""))
		if strings.Contains(strings.ToLower(text), strings.ToLower(word)) {
			n++
		}
	}
	return n
}

// TestHTMLGate: with a baseline, the page shows the gate's verdict, the
// baseline's reasons on their rows, why a failing row fails and what to
// do, and what to do on a red row; the filter is there.
func TestHTMLGate(t *testing.T) {
	c := theCensus(t)
	g := gatedCensus(t, c)
	page := htmlOf(t, c, WriteOptions{gate: g, baseline: "census.baseline"})
	for _, want := range []string{
		`<p id="gate-verdict" class="gate-verdict gate-failed" data-fails="` + itoa(len(g.Fails)) + `"`,
		`>gate: failed, ` + itoa(len(g.Fails)) + ` of ` + itoa(g.Rows) + ` rows (`,
		`<q class="gate-reason">the broker redelivers; tracked in #42</q>`,
		`<tr class="v-no" data-gate="accepted">`,
		`<td class="gate gate-fail" data-sort="0"><b>fails the gate</b>: retry can never start: batch.Run (closure) -&gt; llm.(*Client).Complete (deadline 22s, needs 72s)`,
		`<p class="todo">To do: raise the deadline at batch.Run (closure): context.WithTimeout(context.Background(), 20 * time.Second &#43; 2 * time.Second) to at least 72s, or write why it is accepted in the last column of baseline line `,
		`<h2>What to do on a red row</h2>`,
		`<input id="filter" type="search"`, `<input id="only-red" type="checkbox">`, `<input id="only-failing" type="checkbox">`,
		`<th data-type="num">baseline</th>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the gated page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<q class="gate-reason">`); n != g.Accepted {
		t.Errorf("%d reasons shown, want %d", n, g.Accepted)
	}
	// Without a baseline: no verdict and no baseline column, still the
	// filter and the advice.
	plain := htmlOf(t, c, WriteOptions{})
	if strings.Contains(plain, `id="gate-verdict"`) || strings.Contains(plain, `>baseline</th>`) || !strings.Contains(plain, `<input id="filter"`) || !strings.Contains(plain, "retryvet census -baseline FILE -update") {
		t.Error("the page without a baseline: verdict or baseline column shown, or filter or advice missing")
	}
}

// TestHTMLBound: where the p99 is declared (the attempt time is known) but
// the first wait is not, the need is a bound; a deadline above it shows
// the bound ("unknown (covers at least 80s)") and the reason names the
// first wait, not the attempt time.
func TestHTMLBound(t *testing.T) {
	li := &retrymodel.LayerInfo{Name: "retry loop", Posn: "x/x.go:9", Attempts: 3, AttemptsKnown: true}
	req := deadline.Derive("x.F", li, 40*time.Second, "x/x.go:3")
	if !req.AtLeast || req.Required != 80*time.Second {
		t.Fatalf("derive: %s (%s)", req.RequiredString(), req.Derivation)
	}
	d := deadline.D{Kind: deadline.Known, D: 100 * time.Second}
	pl := &Pipeline{Function: "example.com/x.F", Position: "x/x.go:5:6", Req: req}
	r := &Row{Entry: "example.com/x.G", Kind: "exported", Path: []string{"example.com/x.G", "example.com/x.F"}, PathPos: []string{"x/x.go:12:6", "x/x.go:5:6"},
		D: d, CanStart: req.CanStart(d), P99: req.CoversP99(d)}
	r.Reasons = reasons(pl, r)
	pl.Callers = []*Row{r}
	if r.CanStart != retrymodel.Unknown || len(r.Reasons) != 1 {
		t.Fatalf("verdict %s, reasons %v", r.CanStart, r.Reasons)
	}
	rs := r.Reasons[0]
	if rs.Code != codeWait || !strings.HasPrefix(rs.Text, "first wait unknown: the deadline 100s covers at least 80s") || strings.Contains(rs.Suggestion, "p99") {
		t.Errorf("reason: %+v", rs)
	}
	page := htmlOf(t, &Census{Limits: DefaultLimits, Pipelines: []*Pipeline{pl}}, WriteOptions{})
	if !strings.Contains(page, `<td class="v-unknown" data-sort="1">unknown (covers at least 80s)</td>`) || strings.Contains(page, codeAttempt) {
		t.Errorf("the page does not show the bound:\n%s", page)
	}
}
