#!/usr/bin/env bash
# bench-vet.sh: how much slower is `go vet -vettool=retryvet` than plain
# `go vet` on the same module? Generates a module of N packages (default
# 300) that look like service code (HTTP clients, retry loops, sleep
# helpers, handlers), warms both tools' caches for the standard library,
# then edits every generated file (so the go command cannot reuse cached
# results) and times each tool over the module, REPEAT times each,
# alternating. Prints both medians and the ratio. Target: ratio <= 1.5.
set -euo pipefail
N=${N:-300}
REPEAT=${REPEAT:-3}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/retryvet" "$repo/cmd/retryvet"
mod="$work/mod"
mkdir -p "$mod"
cat > "$mod/go.mod" <<MOD
module bench.example

go 1.26
MOD
for i in $(seq 1 "$N"); do
  d="$mod/p$i"
  mkdir -p "$d"
  prev=""
  if [ "$i" -gt 1 ]; then prev="p$((i-1))"; fi
  cat > "$d/client.go" <<GO
package p$i

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

type Client struct {
	http    *http.Client
	base    string
	retries int
}

func New(base string) *Client {
	return &Client{http: &http.Client{Timeout: 10 * time.Second}, base: base, retries: 3}
}

func (c *Client) Get(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < c.retries; attempt++ {
		resp, err := c.http.Do(req)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 200 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("get %s: %w", path, lastErr)
}

func Normalize(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "-"
	}
	return strings.ToLower(s)
}

var ErrEmpty = errors.New("empty")
GO
  cat > "$d/handler.go" <<GO
package p$i

import (
	"encoding/json"
	"net/http"
	"sort"
)

type item struct {
	Name  string \`json:"name"\`
	Count int    \`json:"count"\`
}

func Handler(c *Client) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		resp, err := c.Get(r.Context(), "/items")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var items []item
		if err := json.NewDecoder(resp.Body).Decode(&items); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		sort.Slice(items, func(i, j int) bool { return items[i].Count > items[j].Count })
		for i := range items {
			items[i].Name = Normalize(items[i].Name)
		}
		_ = json.NewEncoder(w).Encode(items)
	}
}
GO
  if [ -n "$prev" ]; then
    cat > "$d/dep.go" <<GO
package p$i

import (
	"context"

	"bench.example/$prev"
)

func Chain(ctx context.Context) error {
	_, err := $prev.New("http://localhost").Get(ctx, "/")
	return err
}
GO
  fi
done

cd "$mod"
touch_all() { for f in p*/client.go; do echo "// rev $1" >> "$f"; done; }
echo "warming caches (standard library facts for both tools)..."
go vet ./... >/dev/null
go vet -vettool="$work/retryvet" ./... >/dev/null 2>&1 || true

t_vet=(); t_rv=()
now() { date +%s.%N; }
for r in $(seq 1 "$REPEAT"); do
  touch_all "vet$r"; s=$(now); go vet ./... >/dev/null; e=$(now)
  t_vet+=("$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}')")
  touch_all "rv$r"; s=$(now); go vet -vettool="$work/retryvet" ./... >/dev/null 2>&1 || true; e=$(now)
  t_rv+=("$(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.2f", b-a}')")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mv=$(median "${t_vet[@]}"); mr=$(median "${t_rv[@]}")
echo "packages: $N, runs: $REPEAT each"
echo "go vet:                    ${mv}s (runs: ${t_vet[*]})"
echo "go vet -vettool=retryvet:  ${mr}s (runs: ${t_rv[*]})"
echo "ratio: $(awk -v a="$mr" -v b="$mv" 'BEGIN{printf "%.2f", a/b}')"
