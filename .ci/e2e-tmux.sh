#!/usr/bin/env bash
# End-to-end run of the real dashboard under tmux: start on the SampleData demo store, find an
# active subscriber by part of their email and read when they renew; go back, find a Sandbox
# subscriber (its row and pane 2 say so); find an expired one
# the same way, read when and why it expired, scroll to its first event, flag it for service, go
# to the cohorts and draw P3 retention across them, read MRR movement on pane 6 and list a month's
# movers, then to Trends (a chart; enter lists a point's subscriptions), then to Offers: mark two
# rows, flag them, confirm; open a family member and read
# its Family Sharing line; quit; then check with `subdash flags --format json` that exactly those
# are flagged, by the operator given, and that `subdash flags --log` records the service flag.
# Then the defects a new user hit: no terminal, an idle dashboard's CPU, no store, the demo's
# store path. Polls capture-pane instead of sleeping; dumps the pane on failure.
set -euo pipefail
bin="${1:-.build/debug/subdash}"
store="${2:?usage: e2e-tmux.sh BINARY STORE}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"   # the checks below run in other directories
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
# Part of an email, typed in another case, finds the subscriber; pane 2 says when they renew and,
# paying monthly with a 12-month commitment (SampleData/README.md), where the commitment stands.
tmux send-keys -t "$session" "/"
tmux send-keys -t "$session" -l "0009@EXAMPLE"
tmux send-keys -t "$session" Enter
wait_for 'matching "0009@EXAMPLE"'
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  2000000000008000"
wait_for "payment 10 of 12, commitment ends 2026-03-14; renews: yes"
wait_for "Renews on    2026-01-14"
wait_for "Auto-renew   on"
# esc goes back to the search's list, a second esc back to everyone.
tmux send-keys -t "$session" Escape
wait_for 'matching "0009@EXAMPLE"'
tmux send-keys -t "$session" Escape
wait_for "· all ─"
# A Sandbox subscriber is found by search, its row and pane 2 say Sandbox.
tmux send-keys -t "$session" "/"
tmux send-keys -t "$session" -l "customer0048"
tmux send-keys -t "$session" Enter
wait_for 'matching "customer0048"'
wait_for "sbx│"
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  2000000000047000"
wait_for "Environment  Sandbox"
tmux send-keys -t "$session" Escape
wait_for 'matching "customer0048"'
tmux send-keys -t "$session" Escape
wait_for "· all ─"
# A new / starts empty (the previous search is one ↑ away).
tmux send-keys -t "$session" "/"
tmux send-keys -t "$session" -l "omer0002@exa"
tmux send-keys -t "$session" Enter
wait_for 'matching "omer0002@exa"'
# No pause: an enter typed the instant the search is shown (even before its rows arrive) opens the row.
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  2000000000001000"
wait_for "freeTrial"
wait_for "conversion"
# Pane 2 answers at a glance: when access ended and why; the first event is one key away; a
# support agent flags the subscriber for service from here.
wait_for "Expired on   2025-05-14"
wait_for "Ended        turned off auto-renew (voluntary)"
# Events oldest first, as report subscriber lists them: the cursor starts on the newest.
tmux send-keys -t "$session" "e"
wait_for "▸ Events 6/6"
tmux send-keys -t "$session" "g" "g"
wait_for "▸ Events 1/6"
tmux send-keys -t "$session" "f"
wait_for "Flag 1 subscriber for service?"
tmux send-keys -t "$session" Enter
wait_for "flagged for service: 1 subscription as $operator"
wait_for "service by $operator"

tmux send-keys -t "$session" "3"
wait_for "2025-12"
# The cell under the cursor gives its counts; t draws the column's rate across the cohorts.
wait_for "2024-01 · P1 "
tmux send-keys -t "$session" "l" "l" "t"
wait_for "P3 retention by cohort month"
wait_for "% 2024-01"
wait_for "· t: grid"
tmux send-keys -t "$session" "t"
wait_for "· t: trend"

# Pane 6: MRR as a line and its movement as bars, both with axes; the bar under the cursor read
# out; enter lists the bar's subscriptions by movement, enter on one opens it, esc comes back.
tmux send-keys -t "$session" "6"
wait_for "┌ MRR movement by month · USD"
wait_for "  USD 2025-01"
wait_for "2025-12 (to 2025-12-31) · MRR "
tmux send-keys -t "$session" "h"
wait_for "│2025-11 · MRR "
tmux send-keys -t "$session" Enter
wait_for "MRR movement 2025-11 · USD · subscriptions by movement (esc: back)"
wait_for "new · "
moved="$(tmux capture-pane -p -t "$session" | grep -A1 -F "new · " | tail -1 | grep -oE '[0-9]{16}' | head -1)"
[ -n "$moved" ] || fail "no subscription listed under new"
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  $moved"
tmux send-keys -t "$session" Escape
wait_for "subscriptions by movement (esc: back)"
tmux send-keys -t "$session" Escape
wait_for "┌ MRR movement by month · USD"

# Pane 7: active subscriptions by month as a chart with value and date labels; the cursor reads a
# point out, and enter lists exactly as many subscriptions as the point counts.
tmux send-keys -t "$session" "7"
wait_for "Trends · active · 1y by month · 13/13"
wait_for "active at each month's end"
wait_for "200┤"
wait_for "2025-01 2025-02 2025-03"
tmux send-keys -t "$session" "h"
wait_for "Trends · active · 1y by month · 12/13"
wait_for "2025-11: active "
point="$(tmux capture-pane -p -t "$session" | grep -o '2025-11: active [0-9,]*' | head -1 | cut -d' ' -f3)"
tmux send-keys -t "$session" Enter
wait_for "active at 2025-12-01 00:00 UTC ($point)"
tmux send-keys -t "$session" Escape
wait_for "Trends · active · 1y by month · 12/13"

tmux send-keys -t "$session" "5"
wait_for "Offers · winBack ("
wait_for "${expected[1]}"
tmux send-keys -t "$session" Space Space
wait_for "Offers · winBack · 2 marked ("
tmux send-keys -t "$session" "f"
wait_for "Flag 2 subscribers for winBack?"
tmux send-keys -t "$session" Enter
wait_for "flagged for winBack: 2 subscriptions as $operator"
# the two just flagged and the one flagged for service on pane 2
wait_for "flagged 3"

# A family member of the generated data, whose access was revoked: the Subscriber pane says whose
# purchase it is, and when sharing was revoked.
tmux send-keys -t "$session" ":"
tmux send-keys -t "$session" -l "user 3000000000072000"
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  3000000000072000"
wait_for "Family Sharing — access through a family member's purchase"
wait_for "sharing revoked on 2024-11-11"

tmux send-keys -t "$session" "q"
for i in $(seq 1 50); do [ -f "$work/exit" ] && break; sleep 0.1; done
grep -q "EXITED=0" "$work/exit" 2>/dev/null || fail "the dashboard did not exit cleanly ($(cat "$work/exit" 2>/dev/null))"

service="$("$bin" flags --db "$work/store.sqlite" --offer service --format json)"
[ "$(grep -o '"originalTransactionId":"[^"]*"' <<<"$service" | cut -d'"' -f4)" = "2000000000001000" ] ||
  { echo "e2e: the service flag set on pane 2 is not in the store: $service" >&2; exit 1; }
log="$("$bin" flags --db "$work/store.sqlite" --log --subscription 2000000000001000)"
grep -qE "2000000000001000 +service +set +$operator" <<<"$log" ||
  { echo "e2e: subdash flags --log does not show the service flag set on pane 2: $log" >&2; exit 1; }
flags="$("$bin" flags --db "$work/store.sqlite" --offer winBack --format json)"
ids="$(grep -o '"originalTransactionId":"[^"]*"' <<<"$flags" | cut -d'"' -f4 | sort | tr '\n' ' ')"
want="$(printf '%s\n' "${expected[@]}" | sort | tr '\n' ' ')"
[ "$ids" = "$want" ] || { echo "e2e: flagged [$ids], expected [$want]: $flags" >&2; exit 1; }
[ "$(grep -o '"operator":"[^"]*"' <<<"$flags" | sort -u)" = "\"operator\":\"$operator\"" ] ||
  { echo "e2e: flags not written as $operator: $flags" >&2; exit 1; }
[ "$(grep -o '"offer":"[^"]*"' <<<"$flags" | sort -u)" = '"offer":"winBack"' ] ||
  { echo "e2e: flags not for winBack: $flags" >&2; exit 1; }
# The defects a new user hit, each under a terminal of its own.
run_in() {  # run_in NAME COMMAND: a new session running COMMAND, then EXITED=status in $work/NAME.exit
  tmux new-session -d -s "$1" -x 120 -y 40 "$2; echo EXITED=\$? > $work/$1.exit; sleep 30"
}
wait_exit() {  # wait_exit NAME STATUS
  local i
  for i in $(seq 1 100); do [ -f "$work/$1.exit" ] && break; sleep 0.1; done
  grep -q "EXITED=$2" "$work/$1.exit" 2>/dev/null ||
    { tmux capture-pane -p -t "$1" >&2 || true; fail "$1 exited $(cat "$work/$1.exit" 2>/dev/null), expected $2"; }
}
pane_has() {  # pane_has NAME TEXT
  local i
  for i in $(seq 1 100); do
    tmux capture-pane -p -t "$1" | grep -qF -- "$2" && return 0
    sleep 0.1
  done
  tmux capture-pane -p -t "$1" >&2 || true
  fail "$1: did not see '$2'"
}

# Standard input not a terminal: refused at once with status 2 (it used to spin at 100 % CPU).
run_in notty "LANG=C.UTF-8 TERM=xterm-256color $bin --db $work/store.sqlite </dev/null"
wait_exit notty 2
pane_has notty "the dashboard needs a terminal: standard input is not one"

# Idle on a terminal: next to no CPU (it used to take about 3 s a minute polling every 50 ms).
run_in idle "LANG=C.UTF-8 TERM=xterm-256color $bin --db $work/store.sqlite --read-only"
pane_has idle "Subscribers"
sleep 2
shell_pid="$(tmux display -p -t idle '#{pane_pid}')"
pid="$(pgrep -P "$shell_pid" -x subdash || pgrep -P "$shell_pid" | head -1)"
[ -n "$pid" ] || fail "no dashboard process under the idle pane"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
before="$(cpu "$pid")"; sleep 10; after="$(cpu "$pid")"
ticks=$((after - before))
echo "e2e: idle dashboard: $ticks clock ticks of CPU in 10 s ($(getconf CLK_TCK)/s)"
[ "$ticks" -le 10 ] || fail "the idle dashboard used $ticks clock ticks of CPU in 10 s"
tmux send-keys -t idle "q"
wait_exit idle 0

# No store where it is run: nothing opened or created, and advice on importing or the demo.
empty="$(mktemp -d)"
run_in nostore "cd $empty && env -u SUBDASH_DB LANG=C.UTF-8 TERM=xterm-256color $bin"
wait_exit nostore 3
pane_has nostore "no store here (subdash.sqlite): import data first"
pane_has nostore "subdash demo"
[ -z "$(ls -A "$empty")" ] || fail "subdash created $(ls -A "$empty") in an empty directory"
rmdir "$empty"

# The demo names its store before the dashboard opens, and in the status line.
cache="$(dirname "$(dirname "$store")")"
if [ "$(basename "$store")" = demo.sqlite ]; then
  run_in demo "XDG_CACHE_HOME=$cache LANG=C.UTF-8 TERM=xterm-256color $bin demo 2>$work/demo.err"
  pane_has demo "demo store: $store"
  grep -qF "demo store: $store" "$work/demo.err" || fail "demo did not print its store before opening the dashboard"
  tmux send-keys -t demo "q"
  wait_exit demo 0
fi

# Keys typed while "Terminal too small" is shown are ignored (`5` does not switch panes behind
# the message), except q and ctrl-c, which quit: a window that cannot grow is no trap.
run_in small "LANG=C.UTF-8 TERM=xterm-256color $bin --db $work/store.sqlite --read-only"
pane_has small "Subscribers"
tmux resize-window -t small -x 60 -y 20
pane_has small "Terminal too small"
pane_has small "q or ctrl-c quits"
tmux send-keys -t small "5"
tmux resize-window -t small -x 120 -y 40
pane_has small "subdash  ›  Subscribers"
tmux resize-window -t small -x 60 -y 20
pane_has small "Terminal too small"
tmux send-keys -t small "q"
wait_exit small 0
# ctrl-c quits at any size, from a prompt too.
run_in ctrlc "LANG=C.UTF-8 TERM=xterm-256color $bin --db $work/store.sqlite --read-only"
pane_has ctrlc "Subscribers"
tmux send-keys -t ctrlc ":" "u"
tmux send-keys -t ctrlc C-c
wait_exit ctrlc 0

# Support actions against the fake App Store (order lookup, pane 2's extension, the audit log).
if [ "$(basename "$store")" = demo.sqlite ]; then
  bash "$(dirname "$0")/e2e-support.sh" "$bin" "$store"
fi
# A retention campaign from the Offers pane to its funnel: flag, serve, redeem, read.
bash "$(dirname "${BASH_SOURCE[0]}")/e2e-offers-tmux.sh" "$bin" "$store"

echo "e2e: ok"
