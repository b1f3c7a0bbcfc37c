#!/usr/bin/env bash
# retryvet-ci.sh: the shell part of docs/ci/retryvet.yml, runnable anywhere.
#
#   docs/ci/retryvet-ci.sh [packages...]        (default ./...)
#
# 1. go vet -vettool=retryvet: every analyzer, with facts across packages.
# 2. retryvet census -format markdown, appended to $GITHUB_STEP_SUMMARY
#    (or printed when that is unset): every pipeline, every entry path,
#    the deadline on it and whether the retry can start.
# 3. retryvet census -baseline $RETRYVET_BASELINE: the gate. It fails on a
#    new entry path, a short deadline the baseline does not accept, or a
#    row that drifted. Refresh it deliberately with
#      retryvet census -baseline retryvet.baseline -update ./...
#    and commit the file with the reasons filled in.
#
# All three steps run; the script exits 1 if any failed, naming each.
#
# Environment:
#   RETRYVET           the retryvet binary (default: retryvet on PATH)
#   RETRYVET_BASELINE  the baseline file (default: retryvet.baseline)
#   GITHUB_STEP_SUMMARY  set by GitHub Actions
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

# 2. The census, in markdown, for the job summary.
group "retryvet census -format markdown ${pkgs[*]}"
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
census=$(mktemp)
trap 'rm -f "$census"' EXIT
if "$retryvet" census -format markdown "${pkgs[@]}" >"$census"; then
	{
		echo "## retryvet census"
		echo
		cat "$census"
		echo
	} >>"$summary"
else
	rc=$?
	failed+=("retryvet census -format markdown failed (exit $rc)")
fi
endgroup

# 3. The baseline gate.
group "retryvet census -baseline $baseline ${pkgs[*]}"
if [ ! -f "$baseline" ]; then
	failed+=("no census baseline $baseline: create it with 'retryvet census -baseline $baseline -update ${pkgs[*]}', review it and commit it")
elif ! "$retryvet" census -baseline "$baseline" "${pkgs[@]}"; then
	failed+=("the census baseline gate failed (rows named above); fix the deadlines or update $baseline deliberately")
fi
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
