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
// The page tests itself when opened with #selftest: it expands a path and
// sorts a table by clicking, and writes what it saw into
// <pre id="selftest-result">, which a headless browser's --dump-dom shows.
func WriteHTML(w io.Writer, c *Census, opts WriteOptions) error {
	sum := Summarize(c)
	page := htmlPage{Summary: summaryLines(sum), OpenTests: opts.Tests}
	page.Counts = sum
	for _, p := range c.Pipelines {
		hp := htmlPipeline{Function: p.Function, Position: p.Position, Policy: policyLine(p.Req), Derived: p.Req.Derivation}
		if p.Truncated != nil {
			hp.Truncated = truncLine(p.Truncated)
		}
		prod, tests := split(p.Callers)
		for _, r := range prod {
			hp.Rows = append(hp.Rows, htmlRowOf(p, r))
		}
		for _, r := range tests {
			hp.Tests = append(hp.Tests, htmlRowOf(p, r))
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
}

type htmlPipeline struct {
	Function, Position, Policy, Derived string
	Truncated, TestsLine                string
	Rows, Tests                         []htmlRow
}

type htmlRow struct {
	Entry, Kind, Deadline, DeadlineSort, Source string
	CanStart, P99, Decided                      string
	Path                                        string
	Steps                                       []htmlStep
	Note                                        string
	Reasons                                     []Reason
}

type htmlStep struct{ Func, Pos string }

func htmlRowOf(p *Pipeline, r *Row) htmlRow {
	h := htmlRow{
		Entry: short(r.Entry), Kind: r.Kind, Deadline: deadlineCell(r), Source: r.Source,
		CanStart: r.CanStart.String(), P99: r.P99.String(), Decided: decided(p, r).String(),
		Path: shortPath(r.Path), Reasons: r.Reasons,
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
</style>
</head>
<body>
<h1>Deadline census</h1>
<ul class="summary" id="summary">
{{- range .Summary}}
<li>{{.}}</li>
{{- end}}
</ul>
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
{{define "table"}}<table class="census" data-rows="{{len .}}">
<thead><tr>
<th data-type="text">entry</th><th data-type="text">kind</th><th data-type="num">deadline</th><th data-type="text">set at</th>
<th data-type="num">retry can start</th><th data-type="num">covers p99</th><th data-type="num">path</th><th data-type="text">why unknown</th>
</tr></thead>
<tbody>
{{- range .}}
<tr class="v-{{.Decided}}">
<td class="verdict-row" data-sort="{{.Entry}}"><code>{{.Entry}}</code></td>
<td data-sort="{{.Kind}}">{{.Kind}}</td>
<td data-sort="{{.DeadlineSort}}">{{.Deadline}}</td>
<td class="mono" data-sort="{{.Source}}">{{.Source}}</td>
<td class="v-{{.CanStart}}" data-sort="{{verdictSort .CanStart}}">{{.CanStart}}</td>
<td class="v-{{.P99}}" data-sort="{{verdictSort .P99}}">{{.P99}}</td>
<td data-sort="{{len .Steps}}"><details class="path" data-steps="{{len .Steps}}"><summary>{{.Path}}</summary><ol>
{{- range .Steps}}<li><code>{{.Func}}</code> <span class="pos">{{.Pos}}</span></li>{{end -}}
</ol></details></td>
<td data-sort="{{len .Reasons}}">{{if .Note}}<p class="meta">{{.Note}}</p>{{end}}{{if .Reasons}}<ul class="why">
{{- range .Reasons}}<li>{{if not (hasPrefix .Text .Code)}}<b>{{.Code}}</b>: {{end}}{{.Text}} <span class="pos">({{about .About}})</span>{{if .Suggestion}}. <span class="suggest">{{if eq .Code "test cannot observe the retry"}}{{.Suggestion}}{{else}}To decide it: {{.Suggestion}}{{end}}</span>{{end}}</li>{{end -}}
</ul>{{end}}</td>
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
  if (location.hash !== "#selftest") { return; }
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
  var no = document.querySelector("td.v-no");
  if (no) { check(getComputedStyle(no).backgroundColor !== "rgba(0, 0, 0, 0)", "a no verdict is coloured " + getComputedStyle(no).backgroundColor); }
  var pre = document.createElement("pre");
  pre.id = "selftest-result";
  pre.setAttribute("data-result", ok ? "pass" : "fail");
  pre.textContent = (ok ? "PASS" : "FAIL") + "\n" + out.join("\n");
  document.body.appendChild(pre);
})();
{{end}}`
