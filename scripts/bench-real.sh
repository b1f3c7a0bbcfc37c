#!/usr/bin/env bash
# bench-real.sh DIR: retryvet against go vet on a checkout of a real module.
#
#   scripts/bench-real.sh ~/src/prometheus      (prometheus/prometheus at d15adb9ad7e5,
#                                                the intended benchmark)
#   scripts/bench-real.sh ~/src/alertmanager    (prometheus/alertmanager at 68fb2d5759b3,
#                                                the README's numbers)
#
# The module must load with plain go vet: alertmanager embeds its built web
# UI, so create it first (mkdir -p ui/app/dist && echo >ui/app/dist/index.html),
# or every command fails at once.
#
# Runs, in one run and ROUNDS times each, alternating:
#   go vet ./...                           plain vet (cmd/vet)
#   go vet -vettool=retryvet ./...         retryvet's analyzers through vet
#   retryvet ./...                         the standalone command
#   retryvet census ./...                  the census
# then a warm re-run of retryvet ./... (nothing changed: the go command
# answers from its cache), and prints each one's wall time and peak memory
# with their ratios to go vet's.
#
# Caches: the build cache is warm and the analysis cache is cold for every
# measured run. A fresh GOCACHE is built once with `go list -export -deps
# -test ./...` (every package compiled, test variants included, no vet or
# analysis result in it); each run gets a hard-linked copy of it (cp -al),
# so the compiler's work is cached and every vet result has to be computed.
# The census does not use the go command's analysis cache at all.
#
# Peak memory is shown two ways (scripts/bench-measure.py): maxrss, the
# largest resident set of any one process (what /usr/bin/time -v reports),
# and the tree peak, the largest sum over the command and its descendants
# at one time (go vet runs two tool processes at once on two cores).
#
# Memory safety: every command runs under prlimit --as=$MEMLIMIT (default
# 14 GiB of address space per process) so that a run that would take the
# machine down fails instead (it is then reported as failed).
#
# CENSUS=1 measures only the census against go vet (the memory question of
# issue 24: its cost should follow the pipelines it finds, at most 1.5x go
# vet's memory where there are none), and prints the pipelines it found:
#
#   CENSUS=1 scripts/bench-real.sh .                     (retryvet itself: no pipeline)
#   CENSUS=1 scripts/bench-real.sh ~/src/one-hub         (MartialBE/one-hub: no pipeline;
#                                                         mkdir -p web/build && echo >web/build/index.html)
#   CENSUS=1 scripts/bench-real.sh ~/src/one-api         (songquanpeng/one-api: 6 pipelines)
#   CENSUS=1 scripts/bench-real.sh ~/src/franz-go        (4 pipelines: the broker requests)
#   CENSUS=1 scripts/bench-real.sh ~/src/go-zero         (1 pipeline, in a test)
#
# Census tree peak / go vet's (time / go vet's), 2 cores:
#
#   module                      pipelines  a73bbe1        now (probe, linked packages only)
#   retryvet                    0          5.60x          1.18x (1.28x)
#   MartialBE/one-hub 9caf1f7d  0          -              1.22x (1.19x)
#   songquanpeng/one-api 8df4a2 6          -              1.95x (1.95x)
#   twmb/franz-go adb3a18a      4          4.40x          2.51x (2.62x)
#   zeromicro/go-zero 11f21098d 1 (test)   8.82x          3.30x (1.68x)
#
# A program with no pipeline is settled by the probe (go vet -vettool=retryvet
# -census-probe) at about go vet's memory; one with pipelines pays the probe's
# time and then loads only the packages that can be linked with a pipeline.
#
# Environment: ROUNDS (default 1), MEMLIMIT (bytes, default 14 GiB),
# RETRYVET (a prebuilt binary; default: built from this checkout), WARM
# (a warm GOCACHE to start from, see above),
# KEEP=1 keeps the work directory. GOWORK=off: the module alone.
set -euo pipefail
dir=${1:?usage: scripts/bench-real.sh DIR (a checkout of a Go module)}
dir=$(cd "$dir" && pwd)
ROUNDS=${ROUNDS:-1}
MEMLIMIT=${MEMLIMIT:-$((14 << 30))}
repo=$(cd "$(dirname "$0")/.." && pwd)
measure="$repo/scripts/bench-measure.py"
work=$(mktemp -d)
if [ "${KEEP:-}" != 1 ]; then trap 'rm -rf "$work"' EXIT; fi
export GOWORK=off

rv=${RETRYVET:-}
if [ -z "$rv" ]; then
	rv="$work/retryvet"
	(cd "$repo" && go build -o "$rv" ./cmd/retryvet)
fi
echo "retryvet: $rv"
echo "module:   $dir ($(cd "$dir" && git rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
echo "machine:  $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB; load $(cut -d' ' -f1-3 /proc/loadavg)"

# WARM=DIR: a GOCACHE already warmed this way (reused, never modified
# apart from the go command's use-time stamps).
warm=${WARM:-$work/cache-warm}
echo "warming the build cache (go list -export -deps -test ./...)..."
start=$SECONDS
(cd "$dir" && GOCACHE="$warm" go list -e -export -deps -test ./... >/dev/null)
echo "   ($((SECONDS - start))s)"

declare -A t m p codes
names=("go vet ./..." "go vet -vettool=retryvet ./..." "retryvet ./..." "retryvet census ./..." "retryvet ./... (warm re-run)")
if [ "${CENSUS:-}" = 1 ]; then
	names=("go vet ./..." "retryvet census ./...")
fi

# run NAME CACHE CMD...: measure CMD in $dir with GOCACHE=CACHE.
run() {
	local name=$1 cache=$2
	shift 2
	local line
	line=$(cd "$dir" && GOCACHE="$cache" prlimit --as="$MEMLIMIT" "$measure" "$@" 2>&1 >/dev/null | grep '^bench: ' | tail -1)
	read -r _ secs maxrss peak code <<<"$line"
	printf '   %-34s %7ss  maxrss %6s MiB  tree peak %6s MiB  exit %s\n' "$name" "$secs" "$maxrss" "$peak" "$code"
	t[$name]+="$secs "
	m[$name]+="$maxrss "
	p[$name]+="$peak "
	codes[$name]+="$code "
}

fresh() {
	rm -rf "$work/cache"
	cp -al "$warm" "$work/cache" 2>/dev/null || cp -a "$warm" "$work/cache"
	echo "$work/cache"
}

for r in $(seq 1 "$ROUNDS"); do
	echo "round $r"
	run "${names[0]}" "$(fresh)" go vet ./...
	if [ "${CENSUS:-}" = 1 ]; then
		# the census's JSON is kept to count the pipelines it found
		run "${names[1]}" "$(fresh)" sh -c '"$1" census -format json ./... >"$2"' census "$rv" "$work/census.json"
		continue
	fi
	run "${names[1]}" "$(fresh)" go vet -vettool="$rv" ./...
	c=$(fresh)
	run "${names[2]}" "$c" "$rv" ./...
	run "${names[4]}" "$c" "$rv" ./...
	run "${names[3]}" "$(fresh)" "$rv" census -format json ./...
done

median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base_t=$(median "${t[${names[0]}]}")
base_m=$(median "${m[${names[0]}]}")
base_p=$(median "${p[${names[0]}]}")
echo
echo "| command | time | x go vet | maxrss | x go vet | tree peak | x go vet | exit |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "${names[@]}"; do
	mt=$(median "${t[$n]}"); mm=$(median "${m[$n]}"); mp=$(median "${p[$n]}")
	awk -v n="$n" -v t="$mt" -v m="$mm" -v p="$mp" -v bt="$base_t" -v bm="$base_m" -v bp="$base_p" -v c="${codes[$n]}" \
		'BEGIN { printf "| `%s` | %.1f s | %.2f | %.2f GiB | %.2f | %.2f GiB | %.2f | %s|\n", n, t, t/bt, m/1024, m/bm, p/1024, p/bp, c }'
done
if [ "${CENSUS:-}" = 1 ] && [ -s "$work/census.json" ]; then
	python3 - "$work/census.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
s = c["summary"]
print(f"census found {s['pipelines']} pipelines, {s['paths']} entry paths ({s['testPaths']} from tests)")
PY
fi
