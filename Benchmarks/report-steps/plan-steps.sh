#!/usr/bin/env bash
# `report states` and `report events` (one month) at each `--plan`, on one store, with two
# builds side by side: SQLite virtual-machine steps (which do not depend on the machine's load)
# and wall / CPU seconds over alternating runs (docs/performance.md, "States and events by
# billing plan"):
#   Benchmarks/report-steps/plan-steps.sh [--runs N] [--month YYYY-MM] BEFORE_STORE BEFORE_BIN AFTER_STORE AFTER_BIN
# Each build reads its own store (a store opened by a newer build is migrated and cannot be read
# by the older one again). A build that refuses a `--plan` says so in its row.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
runs=10
month=2025-12
while [ "${1:-}" = "--runs" ] || [ "${1:-}" = "--month" ]; do
  if [ "$1" = "--runs" ]; then runs="$2"; else month="$2"; fi
  shift 2
done
[ $# -eq 4 ] || { echo "usage: $0 [--runs N] [--month YYYY-MM] BEFORE_STORE BEFORE_BIN AFTER_STORE AFTER_BIN" >&2; exit 2; }
stores=("$1" "$3"); bins=("$2" "$4"); labels=(before after); bytes=("" "")
shim="${TMPDIR:-/tmp}/subdash-vmsteps.so"
cc -shared -fPIC -O2 -o "$shim" "$here/vmsteps.c" -ldl
next="$(date -u -d "$month-01 + 1 month" +%Y-%m)"
out="$(mktemp)"; err="$(mktemp)"; trap 'rm -f "$out" "$err"' EXIT

# One report's steps with build i, or "refused".
steps() {
  local i="$1"; shift
  if LD_PRELOAD="$shim" "${bins[$i]}" report "$@" --db "${stores[$i]}" --format json >"$out" 2>"$err"; then
    grep '^VMSTEPS ' "$err" | tail -1 | awk '{print $3}'
  else
    echo "refused"
  fi
}

# Median of the numbers on standard input.
median() { sort -n | awk '{a[NR] = $1} END {if (NR == 0) print "–"; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

printf '| report | plan | build | VM steps | wall s (min / median) | CPU s, user + sys (median) | output bytes |\n|---|---|---|---|---|---|---|\n'
for report in states events; do
  args=("$report"); label="states"
  [ "$report" = events ] && args=(events --from "$month-01" --to "$next-01") && label="events, $month"
  for plan in all upfront monthly; do
    walls=(); cpus=(); status=(0 0)
    for ((r = 0; r < runs; r++)); do
      for i in 0 1; do
        if /usr/bin/time -f "%e %U %S" -o "$err.time" "${bins[$i]}" report "${args[@]}" --plan "$plan" --db "${stores[$i]}" --format json >"$out" 2>/dev/null; then
          read -r wall user sys <"$err.time"
          walls[$i]+="$wall "; cpus[$i]+="$(echo "$user + $sys" | bc | awk '{printf "%.2f", $1}') "
          [ "$r" = 0 ] && bytes[$i]="$(stat -c %s "$out")"
        else
          status[$i]=1
        fi
      done
    done
    for i in 0 1; do
      if [ "${status[$i]}" = 1 ]; then
        printf '| %s | %s | %s | refused | – | – | – |\n' "$label" "$plan" "${labels[$i]}"
        continue
      fi
      min="$(tr ' ' '\n' <<<"${walls[$i]}" | grep . | sort -n | head -1)"
      med="$(tr ' ' '\n' <<<"${walls[$i]}" | grep . | median)"
      cpu="$(tr ' ' '\n' <<<"${cpus[$i]}" | grep . | median)"
      printf '| %s | %s | %s | %s | %s / %s | %s | %s |\n' "$label" "$plan" "${labels[$i]}" \
        "$(steps "$i" "${args[@]}" --plan "$plan")" "$min" "$med" "$cpu" "${bytes[$i]}"
    done
  done
done
rm -f "$err.time"
