#!/usr/bin/env bash
# End-to-end run of the real dashboard under tmux: start on the SampleData demo store, search a
# subscriber by email, open it, read when and why it expired, scroll to its first event, flag it
# for service, go to the cohorts, then to Offers: mark two rows, flag them, confirm, quit; then
# check with `subdash flags --format json` that exactly those are flagged, by the operator given. Polls capture-pane instead of sleeping; dumps the pane
# on failure.
set -euo pipefail
bin="${1:-.build/debug/subdash}"
store="${2:?usage: e2e-tmux.sh BINARY STORE}"
session="subdash-e2e-$$"
socket="subdash-e2e-$$"
operator="e2e-operator"
work="$(mktemp -d)"
cp "$store" "$work/store.sqlite"

tmux() { command tmux -L "$socket" "$@"; }
cleanup() { tmux kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

tmux new-session -d -s "$session" -x 120 -y 40 \
  "LANG=C.UTF-8 TERM=xterm-256color $bin --db $work/store.sqlite --operator $operator; echo EXITED=\$? > $work/exit; sleep 30"

fail() {
  echo "e2e: $1; the pane:" >&2
  tmux capture-pane -p -t "$session" >&2 || true
  exit 1
}

wait_for() {
  local text="$1" i
  for i in $(seq 1 100); do
    if tmux capture-pane -p -t "$session" | grep -qF -- "$text"; then return 0; fi
    sleep 0.1
  done
  fail "did not see '$text' on the screen"
}

# The first two subscriptions of the win-back list, as the Offers pane lists them (by id).
read -r -a expected <<<"$("$bin" report eligibility --db "$work/store.sqlite" --offer winBack --format csv |
  sed -n '2,3p' | cut -d, -f2 | tr '\n' ' ')"
[ "${#expected[@]}" -eq 2 ] || fail "the store has fewer than two win-back candidates"

wait_for "Subscribers"
tmux send-keys -t "$session" "/"
tmux send-keys -t "$session" -l "customer0002@example.com"
tmux send-keys -t "$session" Enter
wait_for 'Subscribers matching "customer0002@example.com"'
# No pause: an enter typed the instant the search is shown (even before its rows arrive) opens the row.
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  2000000000001000"
wait_for "freeTrial"
wait_for "conversion"
# Pane 2 answers at a glance: when access ended and why; the first event is one key away; a
# support agent flags the subscriber for service from here.
wait_for "Expired on   2025-05-14"
wait_for "Expired for  voluntary"
tmux send-keys -t "$session" "e" "G"
wait_for "▸ Events 6/6"
tmux send-keys -t "$session" "f"
wait_for "Flag 1 subscriber for service?"
tmux send-keys -t "$session" Enter
wait_for "flagged for service: 1 subscription as $operator"
wait_for "service by $operator"

tmux send-keys -t "$session" "3"
wait_for "2025-12"

tmux send-keys -t "$session" "5"
wait_for "Offers · winBack [0 marked / "
wait_for "${expected[1]}"
tmux send-keys -t "$session" Space Space
wait_for "Offers · winBack [2 marked / "
tmux send-keys -t "$session" "f"
wait_for "Flag 2 subscribers for winBack?"
tmux send-keys -t "$session" Enter
wait_for "flagged for winBack: 2 subscriptions as $operator"
# the two just flagged and the one flagged for service on pane 2
wait_for "flagged 3"

tmux send-keys -t "$session" "q"
for i in $(seq 1 50); do [ -f "$work/exit" ] && break; sleep 0.1; done
grep -q "EXITED=0" "$work/exit" 2>/dev/null || fail "the dashboard did not exit cleanly ($(cat "$work/exit" 2>/dev/null))"

service="$("$bin" flags --db "$work/store.sqlite" --offer service --format json)"
[ "$(grep -o '"originalTransactionId":"[^"]*"' <<<"$service" | cut -d'"' -f4)" = "2000000000001000" ] ||
  { echo "e2e: the service flag set on pane 2 is not in the store: $service" >&2; exit 1; }
flags="$("$bin" flags --db "$work/store.sqlite" --offer winBack --format json)"
ids="$(grep -o '"originalTransactionId":"[^"]*"' <<<"$flags" | cut -d'"' -f4 | sort | tr '\n' ' ')"
want="$(printf '%s\n' "${expected[@]}" | sort | tr '\n' ' ')"
[ "$ids" = "$want" ] || { echo "e2e: flagged [$ids], expected [$want]: $flags" >&2; exit 1; }
[ "$(grep -o '"operator":"[^"]*"' <<<"$flags" | sort -u)" = "\"operator\":\"$operator\"" ] ||
  { echo "e2e: flags not written as $operator: $flags" >&2; exit 1; }
[ "$(grep -o '"offer":"[^"]*"' <<<"$flags" | sort -u)" = '"offer":"winBack"' ] ||
  { echo "e2e: flags not for winBack: $flags" >&2; exit 1; }
echo "e2e: ok"
