#!/usr/bin/env bash
# End-to-end run of the real dashboard under tmux: start on the SampleData demo store, search a
# subscriber by email, open it, see its timeline, go to the cohorts, quit. Polls capture-pane
# instead of sleeping; dumps the pane on failure.
set -euo pipefail
bin="${1:-.build/debug/subdash}"
store="${2:?usage: e2e-tmux.sh BINARY STORE}"
session="subdash-e2e-$$"
work="$(mktemp -d)"
cp "$store" "$work/store.sqlite"

cleanup() { tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

tmux new-session -d -s "$session" -x 120 -y 40 "LANG=C.UTF-8 TERM=xterm-256color $bin --db $work/store.sqlite; echo EXITED=\$? > $work/exit; sleep 30"

wait_for() {
  local text="$1" i
  for i in $(seq 1 100); do
    if tmux capture-pane -p -t "$session" | grep -qF -- "$text"; then return 0; fi
    sleep 0.1
  done
  echo "e2e: did not see '$text' on the screen:" >&2
  tmux capture-pane -p -t "$session" >&2
  exit 1
}

wait_for "Subscribers"
tmux send-keys -t "$session" "/"
tmux send-keys -t "$session" -l "customer0002@example.com"
tmux send-keys -t "$session" Enter
wait_for "2000000000001000"
sleep 0.5 # the row is drawn before the list settles (an Enter at once is lost: see the note)
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  2000000000001000"
wait_for "freeTrial"
wait_for "conversion"
tmux send-keys -t "$session" "3"
wait_for "2025-12"
tmux send-keys -t "$session" "q"
for i in $(seq 1 50); do [ -f "$work/exit" ] && break; sleep 0.1; done
grep -q "EXITED=0" "$work/exit" || { echo "e2e: the dashboard did not exit cleanly" >&2; cat "$work/exit" >&2 || true; exit 1; }
echo "e2e: ok"
