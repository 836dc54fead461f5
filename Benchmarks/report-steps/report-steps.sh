#!/usr/bin/env bash
# SQLite virtual-machine steps of every `subdash report` at its default options (one month or
# one year where a range is needed), beside its wall time and output size, on one store:
#   Benchmarks/report-steps/report-steps.sh .build/release/subdash STORE [MONTH]
# MONTH (YYYY-MM, default: the month before the generated data's horizon, 2025-12) is the one
# month of events, recovery, revenue and refunds; the year of revenue and offers ends with it.
# Compare two sizes of the same generated data (say 20k and 100k): a report whose steps grow
# with the store reads more rows the more subscribers there are; a flat one does not.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$1"; db="$2"; month="${3:-2025-12}"
shim="${TMPDIR:-/tmp}/subdash-vmsteps.so"
cc -shared -fPIC -O2 -o "$shim" "$here/vmsteps.c" -ldl
next="$(date -u -d "$month-01 + 1 month" +%Y-%m)"
year="$(date -u -d "$next-01 - 1 year" +%Y-%m)"
subscriber="$(sqlite3 "$db" "SELECT originalTransactionId FROM subscription ORDER BY periodCount DESC LIMIT 1;")"
m=(--from "$month-01" --to "$next-01"); y=(--from "$year-01" --to "$next-01")
out="$(mktemp)"; err="$(mktemp)"; trap 'rm -f "$out" "$err"' EXIT
printf '| report | VM steps | full-scan steps | sorts | output bytes | wall s (this machine, now) |\n|---|---|---|---|---|---|\n'
run() {
    local label="$1"; shift
    local start end
    start=$(date +%s.%N)
    LD_PRELOAD="$shim" "$bin" report "$@" --db "$db" --format json >"$out" 2>"$err" || { echo "| $label | failed: $(head -c 200 "$err") |"; return; }
    end=$(date +%s.%N)
    read -r _ _ total _ full _ sorts _ _ < <(grep '^VMSTEPS ' "$err" | tail -1)
    printf '| %s | %s | %s | %s | %s | %.3f |\n' "$label" "$total" "$full" "$sorts" "$(stat -c %s "$out")" "$(echo "$end - $start" | bc)"
}
run states states
run "events, one month" events "${m[@]}"
run cohorts cohorts
run "recovery, one month" recovery "${m[@]}"
run subscriber subscriber "$subscriber"
run eligibility eligibility
run "revenue, one month" revenue "${m[@]}"
run "revenue, twelve months by month" revenue "${y[@]}" --by month
run "refunds, one month" refunds "${m[@]}"
run mrr mrr
run "offers, twelve months" offers "${y[@]}"
run ltv ltv
