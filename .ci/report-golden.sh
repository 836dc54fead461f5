#!/usr/bin/env bash
# `subdash report … --format json` on the SampleData demo store, compared byte for byte with the
# files in .ci/report-golden/. Any change to a figure or to a JSON shape (docs/metrics.md,
# "Command line and JSON shapes") shows as a diff and fails.
#
#   .ci/report-golden.sh [--update] [STORE]
#   .ci/report-golden.sh --dump DIR [--binary PATH] STORE
#
# STORE is a demo store built by `subdash demo --rebuild` (CI passes the one it built); without it
# one is built in a temporary cache directory. --update rewrites the golden files instead of
# comparing: do it only when a change of figures is intended (SampleData regenerated, a definition
# changed), and say why in the commit.
#
# --dump writes the same reports of any store into DIR instead, with the binary named by --binary
# (default: the debug build). Two dumps of one store by two builds, compared with `diff -r`, show
# whether a change moved any figure on a large generated store (docs/performance.md, "Reports
# byte-identical at 100,000 subscribers").
set -euo pipefail
cd "$(dirname "$0")/.."

update=0
dump=""
binary=.build/debug/subdash
if [ "${1:-}" = "--update" ]; then update=1; shift; fi
if [ "${1:-}" = "--dump" ]; then dump="$2"; shift 2; fi
if [ "${1:-}" = "--binary" ]; then binary="$2"; shift 2; fi
golden=.ci/report-golden
[ -x "$binary" ] || { echo "report-golden: build subdash first (swift build)" >&2; exit 2; }

store="${1:-}"
cache=""
if [ -z "$store" ]; then
  cache="$(mktemp -d)"
  store="$(XDG_CACHE_HOME="$cache" "$binary" demo --rebuild </dev/null 2>/dev/null)"
fi
if [ -n "$dump" ]; then
  [ -n "$store" ] || { echo "report-golden: --dump needs a STORE" >&2; exit 2; }
  mkdir -p "$dump"
  out="$dump"
  trap '' EXIT
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out" ${cache:+"$cache"}' EXIT
fi

# name, then the report's arguments. Every as-of is the data horizon, which SampleData fixes.
reports=(
  "states|states"
  "states-all-ownerships|states --ownership all"
  "events|events --from 2025-06-01 --to 2025-07-01"
  "cohorts|cohorts"
  "eligibility|eligibility"
  "recovery|recovery --from 2024-01-01 --to 2026-01-01"
  "subscriber-customer0002|subscriber customer0002@example.com"
  "subscriber-2000000000178000|subscriber 2000000000178000"
  "cohorts-mid-2025|cohorts --as-of 2025-06-15"
  "eligibility-mid-2025|eligibility --as-of 2025-06-15"
  "revenue-by-month|revenue --from 2024-01-01 --to 2026-01-01 --by month"
  "revenue-june-2025|revenue --from 2025-06-01 --to 2025-07-01 --by product"
  "refunds-by-month|refunds --from 2024-01-01 --to 2026-01-01 --by month"
  "mrr|mrr"
  "mrr-mid-2025|mrr --as-of 2025-06-15 --by product"
  "offers|offers --from 2024-01-01 --to 2026-01-01"
  "ltv|ltv"
  "ltv-mid-2025|ltv --as-of 2025-06-15 --from 2024-06 --to 2025-06"
)

failed=0
if [ -n "$dump" ]; then
  for entry in "${reports[@]}"; do
    name="${entry%%|*}"
    read -r -a arguments <<<"${entry#*|}"
    # A report that refuses (a subscriber the store does not hold) is dumped as its message.
    "$binary" report "${arguments[@]}" --db "$store" --format json >"$out/$name.json" 2>&1 || true
  done
  echo "report-golden: ${#reports[@]} reports written to $out"
  exit 0
fi
for entry in "${reports[@]}"; do
  name="${entry%%|*}"
  read -r -a arguments <<<"${entry#*|}"
  "$binary" report "${arguments[@]}" --db "$store" --format json >"$out/$name.json"
  if [ "$update" = 1 ]; then
    cp "$out/$name.json" "$golden/$name.json"
  elif ! cmp -s "$out/$name.json" "$golden/$name.json"; then
    echo "report-golden: subdash report ${arguments[*]} --format json differs from $golden/$name.json:" >&2
    diff <(tr ',' '\n' <"$golden/$name.json") <(tr ',' '\n' <"$out/$name.json") | head -40 >&2 || true
    failed=1
  fi
done
if [ "$update" = 1 ]; then echo "report-golden: updated ${#reports[@]} files in $golden"; exit 0; fi
if [ "$failed" = 1 ]; then
  echo "report-golden: figures changed; if that is intended, run .ci/report-golden.sh --update and say why in the commit" >&2
  exit 1
fi
echo "report-golden: ${#reports[@]} reports byte-identical"
