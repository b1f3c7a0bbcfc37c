#!/usr/bin/env bash
# retryvet-ci.sh: the shell part of docs/ci/retryvet.yml, runnable anywhere.
#
#   docs/ci/retryvet-ci.sh [packages...]        (default ./...)
#
# 1. go vet -vettool=retryvet: every analyzer, with facts across packages.
# 2. retryvet census: the whole report goes to $RETRYVET_REPORT_DIR
#    (census.md, census.html: publish the directory as an artifact), and
#    the markdown to $GITHUB_STEP_SUMMARY (printed when that is unset),
#    capped at $RETRYVET_SUMMARY_LIMIT bytes (900 KiB: GitHub keeps 1 MiB
#    of a step's summary) with a line saying where the whole table is.
#    Every pipeline, every entry path, the deadline on it, whether the
#    retry can start, and why a verdict is unknown.
# 3. With $RETRYVET_BASELINE present, the same run is the gate. It fails
#    on a new entry or deadline place, a short deadline the baseline does
#    not accept, or a row that drifted. Refresh it deliberately with
#      retryvet census -baseline retryvet.baseline -update ./...
#    and commit the file with the reasons filled in.
#
# Every step runs; the script exits 1 if any failed, naming each.
#
# Environment:
#   RETRYVET                the retryvet binary (default: retryvet on PATH)
#   RETRYVET_BASELINE       the baseline file (default: retryvet.baseline)
#   RETRYVET_REPORT_DIR     where the whole report goes (default: retryvet-report)
#   RETRYVET_SUMMARY_LIMIT  bytes of markdown appended to the step summary (default: 921600)
#   GITHUB_STEP_SUMMARY     set by GitHub Actions
set -euo pipefail

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(./...)
fi
retryvet=${RETRYVET:-$(command -v retryvet || true)}
if [ -z "$retryvet" ] || [ ! -x "$retryvet" ]; then
	echo "retryvet-ci: no retryvet binary (install it: go install github.com/retryvet/retryvet/cmd/retryvet@latest, or set RETRYVET)" >&2
	exit 2
fi
baseline=${RETRYVET_BASELINE:-retryvet.baseline}
failed=()

group() { if [ -n "${GITHUB_ACTIONS:-}" ]; then echo "::group::$*"; else echo "== $*"; fi; }
endgroup() { if [ -n "${GITHUB_ACTIONS:-}" ]; then echo "::endgroup::"; fi; }

# 1. The analyzers through go vet (exit 1 on findings or build errors).
group "go vet -vettool=retryvet ${pkgs[*]}"
if ! go vet -vettool="$retryvet" "${pkgs[@]}"; then
	failed+=("go vet -vettool=retryvet reported findings (or failed to build)")
fi
endgroup

# 2 and 3. One census run: the report (markdown and HTML) and, with a
# baseline, the gate. Exit 0 fine, 1 the gate failed, 2 the census failed.
report=${RETRYVET_REPORT_DIR:-retryvet-report}
limit=${RETRYVET_SUMMARY_LIMIT:-921600}
mkdir -p "$report"
args=(census -format markdown -html "$report/census.html")
if [ -f "$baseline" ]; then
	args+=(-baseline "$baseline")
	group "retryvet census -baseline $baseline ${pkgs[*]}"
else
	group "retryvet census ${pkgs[*]}"
fi
set +e
"$retryvet" "${args[@]}" "${pkgs[@]}" >"$report/census.md"
rc=$?
set -e
case $rc in
0) ;;
1) failed+=("the census baseline gate failed (rows named above); fix the deadlines or update $baseline deliberately") ;;
*) failed+=("retryvet census failed (exit $rc)") ;;
esac
if [ ! -f "$baseline" ]; then
	failed+=("no census baseline $baseline: create it with 'retryvet census -baseline $baseline -update ${pkgs[*]}', review it and commit it")
fi
if [ -s "$report/census.md" ]; then
	summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
	size=$(wc -c <"$report/census.md")
	{
		echo "## retryvet census"
		echo
		if [ "$size" -le "$limit" ]; then
			cat "$report/census.md"
		else
			# Whole lines only, below the limit.
			head -c "$limit" "$report/census.md" | sed '$d'
			echo
			echo "**The census is $size bytes; the first $limit are shown. The whole table is in the artifact \`$report\` (census.md, census.html).**"
		fi
		echo
	} >>"$summary"
fi
echo "retryvet-ci: the whole census is in $report/ (census.md, census.html)"
endgroup

if [ ${#failed[@]} -gt 0 ]; then
	for f in "${failed[@]}"; do
		if [ -n "${GITHUB_ACTIONS:-}" ]; then
			echo "::error title=retryvet::$f"
		else
			echo "retryvet-ci: FAIL: $f" >&2
		fi
	done
	exit 1
fi
echo "retryvet-ci: ok"
