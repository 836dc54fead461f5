#!/usr/bin/env bash
# End-to-end run of a retention campaign, as an operator runs it: on a copy of STORE, with a
# configuration file holding an In-App Purchase key (made here), an offers token and a catalogue
# (winBack → promotional:come-back-30), flag the first five win-back candidates from the Offers
# pane (keys under tmux); start `listen --offers` on a loopback port and fetch each one's signed
# offer with curl (and a 401 without the token); simulate customers redeeming a share of the
# served offers (`generate-redemptions`) and import them; then read the funnel on the Offers
# pane's campaigns list (flagged 5, served 5, redeemed as many as were simulated) and list the
# redeemed subscribers with enter. Called by e2e-tmux.sh; usage: e2e-offers-tmux.sh BINARY STORE.
set -euo pipefail
bin="${1:-.build/debug/subdash}"
store="${2:?usage: e2e-offers-tmux.sh BINARY STORE}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
session="subdash-offers-$$"
socket="subdash-offers-$$"
operator="e2e-operator"
work="$(mktemp -d)"
cp "$store" "$work/store.sqlite"
listener=""

tmux() { command tmux -L "$socket" "$@"; }
cleanup() {
  [ -n "$listener" ] && kill "$listener" 2>/dev/null || true
  tmux kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "e2e offers: $1; the pane:" >&2
  tmux capture-pane -p -t "$session" >&2 || true
  exit 1
}
wait_for() {  # wait_for TEXT [TRIES]: a fixed string on the screen
  local i
  for i in $(seq 1 "${2:-300}"); do
    tmux capture-pane -p -t "$session" | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  fail "did not see '$1' on the screen"
}
wait_for_line() {  # wait_for_line REGEX [TRIES]: a line matching an extended regular expression
  local i
  for i in $(seq 1 "${2:-300}"); do
    tmux capture-pane -p -t "$session" | grep -qE -- "$1" && return 0
    sleep 0.1
  done
  fail "no line on the screen matches /$1/"
}

# The configuration: a fresh P-256 key, the store's app, an offers token, the catalogue.
config="$work/config/subdash"
mkdir -p "$config"
openssl ecparam -genkey -name prime256v1 -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt >"$config/AuthKey.p8"
chmod 600 "$config/AuthKey.p8"
bundle="$(sqlite3 "$work/store.sqlite" 'SELECT bundleId FROM storeApp WHERE id = 1' 2>/dev/null || true)"
[ -n "$bundle" ] || bundle="com.example.subdash"
token="$(openssl rand -hex 32)"
cat >"$config/config.toml" <<EOF
[appstore]
issuer_id = "57246542-96fe-1a63-e053-0824d011072a"
key_id = "2X9R4HXF34"
bundle_id = "$bundle"
private_key = "AuthKey.p8"

[listen]
offers_token = "$token"

[offers.winBack]
"*" = "promotional:come-back-30"
EOF
chmod 600 "$config/config.toml"
export XDG_CONFIG_HOME="$work/config"

# The first five win-back candidates, as the Offers pane lists them.
read -r -a expected <<<"$("$bin" report eligibility --db "$work/store.sqlite" --offer winBack --format csv |
  sed -n '2,6p' | cut -d, -f2 | tr '\n' ' ')"
[ "${#expected[@]}" -eq 5 ] || fail "the store has fewer than five win-back candidates"

tmux new-session -d -s "$session" -x 160 -y 40 \
  "LANG=C.UTF-8 TERM=xterm-256color XDG_CONFIG_HOME=$XDG_CONFIG_HOME $bin --db $work/store.sqlite --operator $operator; sleep 30"
wait_for "Subscribers"
tmux send-keys -t "$session" "5"
wait_for "Offers · winBack ("
wait_for "${expected[4]}"
tmux send-keys -t "$session" Space Space Space Space Space
wait_for "Offers · winBack · 5 marked ("
tmux send-keys -t "$session" "f"
wait_for "Flag 5 subscribers for winBack?"
# The catalogue's "*" maps every product to the one offer (the dialog names it per product).
wait_for "promotional:come-back-30 ("
tmux send-keys -t "$session" Enter
wait_for "flagged for winBack: 5 subscriptions as $operator"

# The app's backend asks for each one's offer.
port=$((20000 + $$ % 20000))
"$bin" listen --db "$work/store.sqlite" --offers --port "$port" --config "$config/config.toml" 2>"$work/listen.log" &
listener=$!
for i in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break
  sleep 0.1
done
status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/offers/${expected[0]}")"
[ "$status" = 401 ] || fail "GET /offers without the token answered $status, not 401"
for id in "${expected[@]}"; do
  status="$(curl -s -o "$work/offer.json" -w '%{http_code}' -H "Authorization: Bearer $token" \
    "http://127.0.0.1:$port/offers/$id")"
  [ "$status" = 200 ] || fail "GET /offers/$id answered $status: $(cat "$work/offer.json") $(tail -3 "$work/listen.log")"
  grep -qF '"offerIdentifier":"come-back-30"' "$work/offer.json" || fail "GET /offers/$id: $(cat "$work/offer.json")"
done
kill "$listener"
wait "$listener" 2>/dev/null || true
listener=""

# Customers redeem a share of them; the import brings the redemptions in.
generated="$("$bin" generate-redemptions --db "$work/store.sqlite" --share 0.6 --out "$work/redemptions")"
redeemed="$(sed -n 's/^\([0-9]*\) of 5 subscriptions with a served offer redeem it.*/\1/p' <<<"$generated")"
[ -n "$redeemed" ] && [ "$redeemed" -ge 1 ] || fail "generate-redemptions redeemed none: $generated"
"$bin" import --db "$work/store.sqlite" --trust-root "$work/redemptions/test-root.pem" "$work/redemptions" \
  >"$work/import.log" 2>&1 || fail "the import failed: $(cat "$work/import.log")"
grep -qF "$redeemed applied, 0 duplicates, 0 rejected" "$work/import.log" || fail "import: $(cat "$work/import.log")"

# The funnel on the Offers pane: the campaigns list, flagged 5, served 5, redeemed as simulated.
tmux send-keys -t "$session" ":"
tmux send-keys -t "$session" -l "offers campaigns"
tmux send-keys -t "$session" Enter
wait_for "Offers · campaigns"
wait_for_line "winBack +promotional:come-back-30 +5 +5 +$redeemed +0 +0 +100\.0% +[0-9.]+% +– +0 " 300
# The Redeemed column, enter: the subscribers who redeemed, named.
tmux send-keys -t "$session" l l l l
tmux send-keys -t "$session" Enter
wait_for "campaigns › redeemed · winBack promotional:come-back-30 ($redeemed shown)"
wait_for "@example.com"
tmux send-keys -t "$session" Escape
wait_for "Offers · campaigns (1 shown)"
tmux send-keys -t "$session" "q"
echo "e2e offers: ok (5 flagged, 5 served, $redeemed redeemed)"
