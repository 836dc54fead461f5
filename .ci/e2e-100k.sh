#!/usr/bin/env bash
# End to end on 100,000 generated subscribers, as a new user follows the README: generate, then
# run the import `subdash generate` prints (everything it needs, the shared secret included) while
# a dashboard is open on the store. The dashboard is read under tmux every 0.2 s for the whole
# import and must never show a failure (readers work at every moment of an import, indexes set
# aside and rebuilt included). Then a Sandbox subscriber is found by search, its row and pane 2
# naming the environment, and the import summary is checked to have applied the v1 documents.
# Needs a release build (a debug build generates and imports 100,000 subscribers in ~30 minutes).
set -euo pipefail
bin="${1:?usage: e2e-100k.sh BINARY [SUBSCRIBERS]}"
subscribers="${2:-100000}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
work="$(mktemp -d)"
socket="subdash-100k-$$"
session="dash"
tmux() { command tmux -L "$socket" "$@"; }
cleanup() { tmux kill-server 2>/dev/null || true; [ -n "${import_pid:-}" ] && kill "$import_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

fail() {
  echo "e2e-100k: $1; the pane:" >&2
  tmux capture-pane -p -t "$session" >&2 || true
  exit 1
}
wait_for() {   # wait_for TEXT [TENTHS]: the pane shows TEXT within TENTHS/10 s (default 30 s)
  local i
  for i in $(seq 1 "${2:-300}"); do
    tmux capture-pane -p -t "$session" | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  fail "did not see '$1' on the screen"
}
# A failure as the dashboard shows one: "<what> failed: …" in the status line, or SQL's words.
shows_failure() { grep -qiE -- " failed|no such (index|table|column)|database is locked|SQLite error"; }

if [ -n "${E2E_GENERATED:-}" ]; then   # a directory generated before, with generate's output in E2E_GENERATED.out
  cp "$E2E_GENERATED.out" "$work/generate.out"
else
  "$bin" generate --subscribers "$subscribers" --versions both --gzip --out "$work/sim" >"$work/generate.out"
fi
hint="$(sed -n 's/^Import with: subdash //p' "$work/generate.out")"
[ -n "$hint" ] || { cat "$work/generate.out"; echo "e2e-100k: generate printed no import command" >&2; exit 1; }
echo "e2e-100k: generated $subscribers subscribers; importing with: subdash $hint"

# Only `import` creates a store: an empty one, for the dashboard to open before the import.
store="$work/store.sqlite"
"$bin" import --db "$store" - </dev/null 2>/dev/null
tmux new-session -d -s "$session" -x 160 -y 45 \
  "LANG=C.UTF-8 TERM=xterm-256color $bin --db $store --operator e2e; sleep 600"
wait_for "Subscribers"

# The import exactly as printed, the store added. eval: the hint is shell-quoted by generate.
eval "\"\$bin\" $hint --db \"\$store\"" >"$work/import.out" 2>"$work/import.err" &
import_pid=$!
frames=0
while kill -0 "$import_pid" 2>/dev/null; do
  if tmux capture-pane -p -t "$session" | shows_failure; then fail "the dashboard showed a failure during the import"; fi
  frames=$((frames + 1))
  sleep 0.2
done
wait "$import_pid" || { cat "$work/import.err" >&2; echo "e2e-100k: the import failed" >&2; exit 1; }
import_pid=""
echo "e2e-100k: the dashboard showed no failure in $frames looks during the import"
tail -3 "$work/import.err"
# Every v1 document carried the shared secret: none set aside as unverified.
if grep -qE "lack the facts of unverified" "$work/import.err"; then
  echo "e2e-100k: the printed import set v1 documents aside" >&2; exit 1
fi

# The dashboard caught up by itself (its store watch) and shows every subscriber it counts.
expected="$("$bin" report states --db "$store" --environment all --format csv | awk -F, 'NR > 1 { n += $2 } END { print n }')"
[ "$expected" -gt 0 ] || fail "report states counted nobody"
sleep 2
tmux capture-pane -p -t "$session" | shows_failure && fail "the dashboard showed a failure after the import"

# A Sandbox subscriber, found by its subscription id: the row and pane 2 say Sandbox.
sandbox="$(sqlite3 "$store" "SELECT originalTransactionId FROM subscription WHERE environment = 'Sandbox' ORDER BY 1 LIMIT 1")"
[ -n "$sandbox" ] || fail "the generated store holds no Sandbox subscription"
tmux send-keys -t "$session" "/"
tmux send-keys -t "$session" -l "$sandbox"
tmux send-keys -t "$session" Enter
wait_for "matching \"$sandbox\""
wait_for "sbx│"
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  $sandbox"
wait_for "Environment  Sandbox"
tmux capture-pane -p -t "$session" | shows_failure && fail "the dashboard showed a failure on the Sandbox subscriber"
tmux send-keys -t "$session" "q"
echo "e2e-100k: ok (Sandbox subscriber $sandbox found)"
