package deadlinecensus

import (
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/retryvet/retryvet/internal/deadline"
	"github.com/retryvet/retryvet/internal/retrymodel"
)

// WriteHTML prints the census as one self-contained page: no network, the
// style and the script inline. The summary, then one table per pipeline
// with sortable columns (click a header), each row's path expandable with
// the positions of its steps, verdict colours and the reasons. Tests are
// in a collapsed table under each pipeline (open at once with -tests).
//
// A filter above the tables hides the rows that do not hold every word
// typed in it (entry, path, deadline, verdict, reason), or that are not
// red, and says how many are shown. With a baseline (-baseline), the page
// shows the gate's verdict, each row's baseline reason, and on a failing
// row why it fails and what to do.
//
// The page tests itself when opened with #selftest: it expands a path and
// sorts a table by clicking, types into the filter and counts the rows
// shown, and writes what it saw into <pre id="selftest-result">, which a
// headless browser's --dump-dom shows.
func WriteHTML(w io.Writer, c *Census, opts WriteOptions) error {
	sum := Summarize(c)
	page := htmlPage{Summary: summaryLines(sum), OpenTests: opts.Tests}
	page.Counts = sum
	page.TotalRows = sum.Paths + sum.TestPaths
	if g := opts.gate; g != nil {
		page.Gate = &htmlGate{Verdict: g.Verdict(opts.baseline), Passed: g.Passed(), File: opts.baseline, Notes: g.Notes, Fails: len(g.Fails), Rows: g.Rows}
	}
	for _, p := range c.Pipelines {
		hp := htmlPipeline{Function: p.Function, Position: p.Position, Policy: policyLine(p.Req), Derived: p.Req.Derivation}
		if p.Truncated != nil {
			hp.Truncated = truncLine(p.Truncated)
		}
		prod, tests := split(p.Callers)
		hp.Rows.Gated, hp.Tests.Gated = page.Gate != nil, page.Gate != nil
		for _, r := range prod {
			hp.Rows.Rows = append(hp.Rows.Rows, htmlRowOf(p, r, opts.gate))
		}
		for _, r := range tests {
			hp.Tests.Rows = append(hp.Tests.Rows, htmlRowOf(p, r, opts.gate))
		}
		hp.TestsLine = testsLine(p)
		page.Pipelines = append(page.Pipelines, hp)
	}
	return htmlTemplate.Execute(w, page)
}

type htmlPage struct {
	Summary   []string
	Counts    Summary
	Pipelines []htmlPipeline
	OpenTests bool
	TotalRows int
	Gate      *htmlGate // nil without a baseline
}

// htmlGate is the gate's outcome as the page shows it.
type htmlGate struct {
	Verdict, File string
	Passed        bool
	Notes         []string
	Fails, Rows   int
}

type htmlPipeline struct {
	Function, Position, Policy, Derived string
	Truncated, TestsLine                string
	Rows, Tests                         htmlTable
}

// htmlTable is one table's rows; Gated adds the baseline column.
type htmlTable struct {
	Rows  []htmlRow
	Gated bool
}

type htmlRow struct {
	Entry, Kind, Deadline, DeadlineSort, Source string
	CanStart, P99, Decided                      string
	CanStartText                                string // the cell: "unknown (covers at least 20s)" where only a bound is known
	Path                                        string
	Steps                                       []htmlStep
	Note                                        string
	Reasons                                     []Reason

	// The gate's outcome (with a baseline): Gate is pass, accepted,
	// fail, or "" when the row is not gated (a test without -gate-tests).
	Gate, GateReason, GateFail, GateTodo string
	GateLine                             int
}

type htmlStep struct{ Func, Pos string }

func htmlRowOf(p *Pipeline, r *Row, g *gateResult) htmlRow {
	h := htmlRow{
		Entry: short(r.Entry), Kind: r.Kind, Deadline: deadlineCell(r), Source: r.Source,
		CanStart: r.CanStart.String(), P99: r.P99.String(), Decided: decided(p, r).String(),
		Path: shortPath(r.Path), Reasons: r.Reasons,
	}
	h.CanStartText = h.CanStart
	if req := p.Req; r.CanStart == retrymodel.Unknown && req.Retry && req.Known && req.AtLeast && r.D.Kind == deadline.Known {
		h.CanStartText = "unknown (covers at least " + deadline.Format(req.Required) + ")"
	}
	if rg, ok := g.Row(p.Function, r); ok {
		h.GateReason, h.GateFail, h.GateTodo, h.GateLine = rg.Reason, rg.Fail, rg.Todo, rg.Line
		switch {
		case rg.Fail != "":
			h.Gate = "fail"
		case rg.Reason != "":
			h.Gate = "accepted"
		default:
			h.Gate = "pass"
		}
	}
	// Sort keys: a known deadline by its seconds; none sorts last (no
	// deadline is the longest), unknown and from caller before it.
	switch r.D.Kind {
	case deadline.Known:
		h.DeadlineSort = strconv.FormatFloat(r.D.D.Seconds(), 'f', -1, 64)
	case deadline.None:
		h.DeadlineSort = "1e18"
	default:
		h.DeadlineSort = "1e17"
	}
	if r.noteShown() {
		h.Note = r.Note
	}
	for i, f := range r.Path {
		st := htmlStep{Func: short(f)}
		if i < len(r.PathPos) {
			st.Pos = r.PathPos[i]
		}
		h.Steps = append(h.Steps, st)
	}
	return h
}

// verdictSort orders no before unknown before yes.
func verdictSort(s string) int {
	switch s {
	case retrymodel.No.String():
		return 0
	case retrymodel.Unknown.String():
		return 1
	}
	return 2
}

var htmlTemplate = template.Must(template.New("census").Funcs(template.FuncMap{
	"verdictSort": verdictSort,
	"about":       func(a []string) string { return strings.Join(a, ", ") },
	"hasPrefix":   strings.HasPrefix,
}).Parse(htmlSource))

const htmlSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>retryvet deadline census</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #1f2328; }
code, .pos, td.mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; width: 100%; margin: .5em 0 1em; }
th, td { border: 1px solid #d0d7de; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort=ascending]::after { content: " \25B2"; } th[aria-sort=descending]::after { content: " \25BC"; }
tr.v-no td.verdict-row { border-left: 4px solid #cf222e; }
tr.v-yes td.verdict-row { border-left: 4px solid #1a7f37; }
tr.v-unknown td.verdict-row { border-left: 4px solid #9a6700; }
td.v-no { background: #ffebe9; color: #a40e26; font-weight: 600; }
td.v-yes { background: #dafbe1; color: #116329; }
td.v-unknown { background: #fff8c5; color: #7d4e00; }
details.path summary { cursor: pointer; }
details.path ol { margin: .3em 0 0; padding-left: 1.6em; }
.pos { color: #57606a; }
.why { margin: 0; padding-left: 1.1em; } .why li { margin-bottom: .2em; }
.suggest { color: #0969da; }
.meta { color: #57606a; margin: .2em 0; }
.trunc { background: #fff8c5; padding: .3em .6em; border-radius: 4px; }
.summary { background: #f6f8fa; padding: .6em 1em; border-radius: 6px; }
.summary li { list-style: none; }
#selftest-result { background: #eee; padding: .5em; }
.gate-verdict { padding: .5em 1em; border-radius: 6px; font-weight: 600; }
.gate-passed { background: #dafbe1; color: #116329; } .gate-failed { background: #ffebe9; color: #a40e26; }
td.gate-fail { background: #ffebe9; } td.gate-accepted { background: #f6f8fa; }
.todo { margin: .2em 0 0; color: #0969da; }
.help { border-left: 4px solid #cf222e; padding: .2em 1em; margin: 1em 0; }
.help h2 { margin-top: .3em; }
.filter { position: sticky; top: 0; background: #fff; padding: .5em 0; border-bottom: 1px solid #d0d7de; z-index: 1; }
.filter input[type=search] { width: 28em; max-width: 60%; font: inherit; padding: 2px 6px; }
#filter-count { color: #57606a; margin-left: 1em; }
</style>
</head>
<body>
<h1>Deadline census</h1>
<ul class="summary" id="summary">
{{- range .Summary}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- with .Gate}}
<section id="gate">
<p id="gate-verdict" class="gate-verdict {{if .Passed}}gate-passed{{else}}gate-failed{{end}}" data-fails="{{.Fails}}" data-rows="{{.Rows}}">{{.Verdict}}</p>
<p class="meta">baseline <code>{{.File}}</code>: each row below says whether it passes the gate, the reason its baseline line gives, and on a failing row what to do.</p>
{{- if .Notes}}
<ul class="meta">
{{- range .Notes}}<li>{{.}}</li>{{end}}
</ul>
{{- end}}
</section>
{{- end}}
{{- if .Counts.Decided.No}}
<section class="help" id="red-help">
<h2>What to do on a red row</h2>
<p>A red row is an entry path whose deadline is below what the pipeline's retry needs before its first retry can start (<i>retry can start: no</i>: on that path the retry never happens) or below the remote call's p99 (<i>covers p99: no</i>: slow answers become errors).
Either raise the deadline where it is set (column <i>set at</i>) to at least the time the pipeline needs (its <i>policy</i> line), or, when the short deadline is intended,
{{- if .Gate}} accept the row: write the reason in the last column of its line in <code>{{.Gate.File}}</code>, and the gate passes it.
{{- else}} accept the row in a baseline: <code>retryvet census -baseline FILE -update</code>, then write the reason in the last column of its line; the gate (<code>retryvet census -baseline FILE</code>) then passes it.
{{- end}}</p>
</section>
{{- end}}
{{- if .Pipelines}}
<div class="filter" id="filter-bar">
<label>Filter rows <input id="filter" type="search" placeholder="words in entry, path, deadline, verdict or reason" autocomplete="off"></label>
<label><input id="only-red" type="checkbox"> red rows only</label>
{{- if .Gate}}
<label><input id="only-failing" type="checkbox"> failing the gate only</label>
{{- end}}
<span id="filter-count" aria-live="polite">{{.TotalRows}} of {{.TotalRows}} rows shown</span>
</div>
{{- end}}
{{- if not .Pipelines}}
<p>No pipelines found (no retried remote call, no //retryvet:pipeline).</p>
{{- end}}
{{- range $i, $p := .Pipelines}}
<section class="pipeline" id="pipeline-{{$i}}">
<h2><code>{{$p.Function}}</code></h2>
<p class="meta">position <code>{{$p.Position}}</code></p>
<p class="meta">policy: {{$p.Policy}}</p>
<p class="meta">derived: {{$p.Derived}}</p>
{{- if $p.Truncated}}
<p class="trunc">{{$p.Truncated}}</p>
{{- end}}
{{- if $p.Rows}}
{{template "table" $p.Rows}}
{{- else if not $p.Tests}}
<p>No callers found in the analysed packages.</p>
{{- end}}
{{- if $p.Tests}}
<details class="tests"{{if $.OpenTests}} open{{end}}>
<summary>Tests: {{$p.TestsLine}}</summary>
{{template "table" $p.Tests}}
</details>
{{- end}}
</section>
{{- end}}
<script>
{{template "script"}}
</script>
</body>
</html>
{{define "table"}}<table class="census" data-rows="{{len .Rows}}">
<thead><tr>
<th data-type="text">entry</th><th data-type="text">kind</th><th data-type="num">deadline</th><th data-type="text">set at</th>
<th data-type="num">retry can start</th><th data-type="num">covers p99</th><th data-type="num">path</th><th data-type="text">why unknown</th>
{{- if .Gated}}<th data-type="num">baseline</th>{{end}}
</tr></thead>
<tbody>
{{- $gated := .Gated}}
{{- range .Rows}}
<tr class="v-{{.Decided}}"{{if .Gate}} data-gate="{{.Gate}}"{{end}}>
<td class="verdict-row" data-sort="{{.Entry}}"><code>{{.Entry}}</code></td>
<td data-sort="{{.Kind}}">{{.Kind}}</td>
<td data-sort="{{.DeadlineSort}}">{{.Deadline}}</td>
<td class="mono" data-sort="{{.Source}}">{{.Source}}</td>
<td class="v-{{.CanStart}}" data-sort="{{verdictSort .CanStart}}">{{.CanStartText}}</td>
<td class="v-{{.P99}}" data-sort="{{verdictSort .P99}}">{{.P99}}</td>
<td data-sort="{{len .Steps}}"><details class="path" data-steps="{{len .Steps}}"><summary>{{.Path}}</summary><ol>
{{- range .Steps}}<li><code>{{.Func}}</code> <span class="pos">{{.Pos}}</span></li>{{end -}}
</ol></details></td>
<td data-sort="{{len .Reasons}}">{{if .Note}}<p class="meta">{{.Note}}</p>{{end}}{{if .Reasons}}<ul class="why">
{{- range .Reasons}}<li>{{if not (hasPrefix .Text .Code)}}<b>{{.Code}}</b>: {{end}}{{.Text}} <span class="pos">({{about .About}})</span>{{if .Suggestion}}. <span class="suggest">{{if eq .Code "test cannot observe the retry"}}{{.Suggestion}}{{else}}To decide it: {{.Suggestion}}{{end}}</span>{{end}}</li>{{end -}}
</ul>{{end}}</td>
{{- if $gated}}
{{- if eq .Gate "fail"}}
<td class="gate gate-fail" data-sort="0"><b>fails the gate</b>: {{.GateFail}}{{if .GateReason}} (baseline reason: <q class="gate-reason">{{.GateReason}}</q>){{end}}<p class="todo">To do: {{.GateTodo}}</p></td>
{{- else if eq .Gate "accepted"}}
<td class="gate gate-accepted" data-sort="1">accepted (baseline line {{.GateLine}}): <q class="gate-reason">{{.GateReason}}</q></td>
{{- else if eq .Gate "pass"}}
<td class="gate gate-pass" data-sort="2">passes (baseline line {{.GateLine}})</td>
{{- else}}
<td class="gate" data-sort="3">not gated (a test entry: -gate-tests gates it)</td>
{{- end}}
{{- end}}
</tr>
{{- end}}
</tbody>
</table>{{end}}
{{define "script"}}
(function () {
  "use strict";
  function key(row, col) {
    var c = row.cells[col];
    return c ? c.getAttribute("data-sort") || c.textContent : "";
  }
  function cmp(a, b, num) {
    if (num) { return parseFloat(a) - parseFloat(b); }
    return a < b ? -1 : a > b ? 1 : 0;
  }
  // sortBy sorts the table's rows by column col; a second click on the
  // same header reverses the order. The sort is stable.
  function sortBy(th) {
    var table = th.closest("table"), tbody = table.tBodies[0];
    var col = th.cellIndex, num = th.getAttribute("data-type") === "num";
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(tbody.rows).map(function (r, i) { return [r, i]; });
    rows.sort(function (x, y) { return dir * cmp(key(x[0], col), key(y[0], col), num) || x[1] - y[1]; });
    rows.forEach(function (x) { tbody.appendChild(x[0]); });
  }
  document.querySelectorAll("table.census th").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  // The filter: a row is shown when it holds every word typed (in any
  // cell, its path's steps and reasons included), and is red or fails
  // the gate when those boxes are ticked.
  var filter = document.getElementById("filter"), onlyRed = document.getElementById("only-red");
  var onlyFailing = document.getElementById("only-failing"), count = document.getElementById("filter-count");
  function applyFilter() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(function (w) { return w !== ""; });
    var shown = 0, total = 0;
    document.querySelectorAll("table.census tbody tr").forEach(function (tr) {
      total++;
      var text = tr.textContent.toLowerCase();
      var ok = words.every(function (w) { return text.indexOf(w) >= 0; }) &&
        (!onlyRed.checked || tr.classList.contains("v-no")) &&
        (!onlyFailing || !onlyFailing.checked || tr.getAttribute("data-gate") === "fail");
      tr.hidden = !ok;
      if (ok) { shown++; }
    });
    count.textContent = shown + " of " + total + " rows shown";
    return shown;
  }
  if (filter) {
    filter.addEventListener("input", applyFilter);
    onlyRed.addEventListener("change", applyFilter);
    if (onlyFailing) { onlyFailing.addEventListener("change", applyFilter); }
  }
  var hash = location.hash.split("&");
  if (hash[0] !== "#selftest") { return; }
  var word = "";
  hash.slice(1).forEach(function (kv) { if (kv.indexOf("filter=") === 0) { word = decodeURIComponent(kv.slice(7)); } });
  // The self-test a headless browser runs (--dump-dom on #selftest).
  var out = [], ok = true;
  function check(cond, what) { out.push((cond ? "ok   " : "FAIL ") + what); if (!cond) { ok = false; } }
  var tables = document.querySelectorAll("table.census");
  var rows = 0;
  tables.forEach(function (t) {
    check(t.tBodies[0].rows.length === parseInt(t.getAttribute("data-rows"), 10), "table rows " + t.tBodies[0].rows.length + " = " + t.getAttribute("data-rows"));
    rows += t.tBodies[0].rows.length;
  });
  out.push("rows " + rows);
  var d = document.querySelector("details.path");
  check(d !== null, "a path to expand");
  if (d) {
    check(!d.open, "the path starts collapsed");
    d.querySelector("summary").click();
    check(d.open, "clicking the path's summary expands it");
    var steps = d.querySelectorAll("ol li");
    check(steps.length === parseInt(d.getAttribute("data-steps"), 10) && steps.length > 0, "the expanded path lists " + steps.length + " steps");
    var pos = d.querySelector("ol li .pos");
    check(pos !== null && /:[0-9]+:[0-9]+$/.test(pos.textContent), "a step shows its position " + (pos ? pos.textContent : ""));
    check(d.getBoundingClientRect().height > 0, "the path is rendered");
  }
  var t = null;
  tables.forEach(function (x) { if (!t || x.tBodies[0].rows.length > t.tBodies[0].rows.length) { t = x; } });
  check(t !== null && t.tBodies[0].rows.length > 1, "a table with rows to sort");
  if (t && t.tBodies[0].rows.length > 1) {
    var th = t.tHead.rows[0].cells[2];
    th.click();
    var ks = Array.prototype.map.call(t.tBodies[0].rows, function (r) { return parseFloat(key(r, 2)); });
    var asc = ks.every(function (k, i) { return i === 0 || ks[i - 1] <= k; });
    check(asc && th.getAttribute("aria-sort") === "ascending", "clicking deadline sorts ascending: " + ks.join(" "));
    th.click();
    ks = Array.prototype.map.call(t.tBodies[0].rows, function (r) { return parseFloat(key(r, 2)); });
    var desc = ks.every(function (k, i) { return i === 0 || ks[i - 1] >= k; });
    check(desc && th.getAttribute("aria-sort") === "descending", "clicking again sorts descending: " + ks.join(" "));
    t.tHead.rows[0].cells[0].click();
    var es = Array.prototype.map.call(t.tBodies[0].rows, function (r) { return key(r, 0); });
    check(es.every(function (e, i) { return i === 0 || es[i - 1] <= e; }), "clicking entry sorts by name");
  }
  // The gate: its verdict, and the baseline's reasons on their rows.
  var verdict = document.getElementById("gate-verdict");
  if (verdict) {
    check(/^gate: (passed|failed), /.test(verdict.textContent), "the gate's verdict is shown");
    out.push("verdict " + verdict.textContent.split(":").slice(0, 2).join(":").replace(/ \(.*/, ""));
    var reasons = document.querySelectorAll("td.gate .gate-reason");
    out.push("reasons " + reasons.length);
    reasons.forEach(function (q) { check(q.getBoundingClientRect().height > 0 && q.textContent !== "", "a reason is shown: " + q.textContent); });
    var fails = document.querySelectorAll("tr[data-gate=fail]");
    check(fails.length === parseInt(verdict.getAttribute("data-fails"), 10), "failing rows " + fails.length + " = " + verdict.getAttribute("data-fails"));
    fails.forEach(function (tr) { check(tr.querySelector(".todo") !== null, "a failing row says what to do"); });
  }
  check(document.getElementById("red-help") === null || /What to do on a red row/.test(document.getElementById("red-help").textContent), "the page says what to do on a red row");
  // The filter, typed into as a user would: the rows shown are those that
  // hold the word, the others are not rendered, and the count says so.
  check(filter !== null, "a filter");
  if (filter && word !== "") {
    filter.focus();
    filter.value = word;
    filter.dispatchEvent(new Event("input", { bubbles: true }));
    var all = document.querySelectorAll("table.census tbody tr"), vis = 0, right = true;
    all.forEach(function (tr) {
      var has = tr.textContent.toLowerCase().indexOf(word.toLowerCase()) >= 0;
      if (!tr.hidden) { vis++; }
      if (has === tr.hidden) { right = false; }
      if (tr.hidden && tr.getClientRects().length !== 0) { right = false; }
    });
    check(right, "the filter shows exactly the rows holding " + JSON.stringify(word));
    check(count.textContent === vis + " of " + all.length + " rows shown", "the count says " + count.textContent);
    out.push("filter " + JSON.stringify(word) + " shows " + vis + " of " + all.length);
    onlyRed.click();
    var red = 0;
    all.forEach(function (tr) { if (!tr.hidden) { red++; if (!tr.classList.contains("v-no")) { right = false; } } });
    check(right, "red rows only keeps red rows holding the word");
    out.push("red " + red);
    onlyRed.click();
    filter.value = "";
    filter.dispatchEvent(new Event("input", { bubbles: true }));
    check(applyFilter() === all.length, "an empty filter shows every row again");
  }
  var no = document.querySelector("td.v-no");
  if (no) { check(getComputedStyle(no).backgroundColor !== "rgba(0, 0, 0, 0)", "a no verdict is coloured " + getComputedStyle(no).backgroundColor); }
  var pre = document.createElement("pre");
  pre.id = "selftest-result";
  pre.setAttribute("data-result", ok ? "pass" : "fail");
  pre.textContent = (ok ? "PASS" : "FAIL") + "\n" + out.join("\n");
  document.body.appendChild(pre);
})();
{{end}}`
