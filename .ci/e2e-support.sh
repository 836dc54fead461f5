#!/usr/bin/env bash
# Support actions end to end under tmux (README, "Support actions"), against subdash-fake-appstore
# over loopback with a throwaway key: a support agent types the order ID of a receipt into `/`,
# takes the offer to look it up at Apple, extends the subscriber's renewal date from pane 2 with
# `x`, reads it in `:log`, then reads on `:support` a mass extension asked with
# `subdash extend --all` and polled by the dashboard itself. Then checks what the fake
# App Store received (each request once, every token accepted) and what `subdash log` recorded.
# The store is the demo's (its app is com.example.subdash). Called by e2e-tmux.sh; polls
# capture-pane instead of sleeping; dumps the pane and the fake's log on failure.
set -euo pipefail
bin="${1:?usage: e2e-support.sh BINARY STORE}"
store="${2:?usage: e2e-support.sh BINARY STORE}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
fake="$(dirname "$bin")/subdash-fake-appstore"
[ -x "$fake" ] || { echo "e2e-support: $fake is not built (swift build --product subdash-fake-appstore)" >&2; exit 1; }
session="subdash-support-$$"
socket="subdash-support-$$"
operator="agent-e2e"
order="MK4H9N2XQ1"
subscription="2000000000999000"
bundle="com.example.subdash"
work="$(mktemp -d)"
cp "$store" "$work/store.sqlite"
fake_pid=""

tmux() { command tmux -L "$socket" "$@"; }
cleanup() {
  tmux kill-server 2>/dev/null || true
  [ -z "$fake_pid" ] || kill "$fake_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "e2e-support: $1; the pane:" >&2
  tmux capture-pane -p -t "$session" >&2 || true
  echo "e2e-support: what the fake App Store received:" >&2
  cat "$work/fake.log" >&2 || true
  exit 1
}
wait_gone() {  # an escape followed at once by a key would reach curses as alt-KEY
  local text="$1" i
  for i in $(seq 1 150); do
    if ! tmux capture-pane -p -t "$session" | grep -qF -- "$text"; then return 0; fi
    sleep 0.1
  done
  fail "'$text' stayed on the screen"
}
wait_for() {
  local text="$1" i
  for i in $(seq 1 150); do
    if tmux capture-pane -p -t "$session" | grep -qF -- "$text"; then return 0; fi
    sleep 0.1
  done
  fail "did not see '$text' on the screen"
}

# A throwaway App Store Connect key (.p8, P-256), readable by its owner only as subdash requires.
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/AuthKey.p8"
chmod 600 "$work/AuthKey.p8"

# The order on the customer's receipt: one monthly subscription bought 10 days ago, renewing in
# 20 (milliseconds, as Apple signs them). Nobody in the store has it until it is looked up.
now=$(($(date +%s) * 1000))
day=86400000
cat >"$work/seed.json" <<EOF
{"orders": {"$order": [{"transactionId": "2000000000999001", "originalTransactionId": "$subscription",
  "webOrderLineItemId": "2000000000999001", "bundleId": "$bundle", "productId": "com.example.pro.monthly",
  "subscriptionGroupIdentifier": "21000000", "purchaseDate": $((now - 10 * day)),
  "originalPurchaseDate": $((now - 10 * day)), "expiresDate": $((now + 20 * day)), "signedDate": $((now - 10 * day)),
  "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
  "environment": "Production", "transactionReason": "PURCHASE", "storefront": "USA", "storefrontId": "143441",
  "price": 9990, "currency": "USD"}]}}
EOF
"$fake" --key "$work/AuthKey.p8" --bundle-id "$bundle" --seed "$work/seed.json" --root-out "$work/root.pem" \
  >"$work/fake.out" 2>"$work/fake.log" &
fake_pid=$!
for _ in $(seq 1 100); do grep -q '^listening on ' "$work/fake.out" 2>/dev/null && break; sleep 0.1; done
base="$(sed -n 's/^listening on //p' "$work/fake.out")"
[ -n "$base" ] || fail "the fake App Store did not start"

# The credentials as the README's "Support actions" gives them (environment variables here).
credentials="SUBDASH_ISSUER_ID=57246542-96fe-1a63-e053-0824d011072a SUBDASH_KEY_ID=2X9R4HXF34"
credentials+=" SUBDASH_BUNDLE_ID=$bundle SUBDASH_PRIVATE_KEY=$work/AuthKey.p8 SUBDASH_API_BASE=$base"
# A mass extension asked from the command line, as after an outage: the dashboard polls it and
# `:support` shows it.
env $credentials "$bin" extend --all --product com.example.pro.monthly --days 3 --reason service-issue --storefront USA \
  --yes --db "$work/store.sqlite" --operator "$operator" --trust-root "$work/root.pem" >"$work/mass.out" 2>&1 ||
  fail "subdash extend --all failed: $(cat "$work/mass.out")"
mass="$(sed -n 's/^mass extension requested: //p' "$work/mass.out")"
[ -n "$mass" ] || fail "subdash extend --all gave no request identifier: $(cat "$work/mass.out")"
tmux new-session -d -s "$session" -x 120 -y 40 \
  "LANG=C.UTF-8 TERM=xterm-256color $credentials $bin --db $work/store.sqlite --operator $operator \
   --trust-root $work/root.pem; echo EXITED=\$? > $work/exit; sleep 30"

wait_for "Subscribers"
# The running mass extension is polled as the dashboard opens; the fake says it is complete.
wait_for "mass extension $mass (com.example.pro.monthly): complete: 30 succeeded, 2 failed"
# The order ID matches nobody: the dashboard offers to look it up at Apple; enter does, in the
# background, and opens the subscriber Apple returns.
tmux send-keys -t "$session" "/"
tmux send-keys -t "$session" -l "$order"
wait_for "Nobody matches \"$order\": look up order $order at Apple (enter)"
tmux send-keys -t "$session" Enter
wait_for "Subscriber  ›  $subscription"
wait_for "order $order from Apple: $subscription"
wait_for "Product      com.example.pro.monthly"
# x: the dialog names the environment and the resulting date; typed days replace the proposal.
renewal="$(date -u -d "@$((now / 1000 + 20 * 86400))" +%Y-%m-%dT%H:%M:%SZ)"
extended="$(date -u -d "@$((now / 1000 + 27 * 86400))" +%Y-%m-%dT%H:%M:%SZ)"
tmux send-keys -t "$session" "x"
wait_for "Extend the renewal date"
wait_for "Extend $subscription (com.example.pro.monthly,"
wait_for "production)?"
tmux send-keys -t "$session" "7"
wait_for "Days: 7 (1–90)"
wait_for "Renewal date $renewal → $extended."
tmux send-keys -t "$session" Enter
wait_for "extended $subscription by 7 days: Apple's new renewal date $extended"
# :log on pane 2: that subscriber's audit log.
tmux send-keys -t "$session" ":"
tmux send-keys -t "$session" -l "log"
tmux send-keys -t "$session" Enter
wait_for "Audit log of $subscription"
wait_for "$operator · $subscription · extend"
wait_for "Apple's new renewal date $extended"
tmux send-keys -t "$session" Escape
wait_gone "Audit log of $subscription"
# :support: the consumption queue (none here) and the mass extension with the status polled.
tmux send-keys -t "$session" ":"
tmux send-keys -t "$session" -l "support"
tmux send-keys -t "$session" Enter
wait_for "Consumption requests: 0 waiting, 0 answered"
wait_for "Mass extensions: 1"
wait_for "request $mass"
wait_for "complete: 30 succeeded, 2 failed"
wait_for "extend every active subscriber by 3 days"
tmux send-keys -t "$session" Escape
wait_gone "Mass extensions: 1"
tmux send-keys -t "$session" "q"
for _ in $(seq 1 100); do [ -f "$work/exit" ] && break; sleep 0.1; done
grep -q "EXITED=0" "$work/exit" 2>/dev/null || fail "the dashboard did not quit with status 0"

# What Apple (the fake) received: the lookup once, the extension once with 7 days, every token
# accepted.
grep -q "token refused" "$work/fake.log" && fail "the fake App Store refused a token"
[ "$(grep -c "^GET /inApps/v1/lookup/$order " "$work/fake.log")" -eq 1 ] || fail "the order was not looked up once"
[ "$(grep -c "^POST /inApps/v1/subscriptions/extend/mass " "$work/fake.log")" -eq 1 ] || fail "the mass extension was not sent once"
[ "$(grep -c "^GET /inApps/v1/subscriptions/extend/mass/com.example.pro.monthly/$mass" "$work/fake.log")" -eq 1 ] ||
  fail "the dashboard did not poll the mass extension once (it stops once complete)"
[ "$(grep -c "^PUT /inApps/v1/subscriptions/extend/$subscription " "$work/fake.log")" -eq 1 ] ||
  fail "the extension was not sent once"
grep -q "^PUT /inApps/v1/subscriptions/extend/$subscription {\"extendByDays\":7,\"extendReasonCode\":1," \
  "$work/fake.log" || fail "the extension sent is not 7 days for customer satisfaction"
# What the audit log holds: both actions, by the operator, in production.
log="$("$bin" log --db "$work/store.sqlite")"
grep -F "$operator" <<<"$log" | grep -F "$order" | grep -qF production ||
  { echo "e2e-support: subdash log lacks the lookup: $log" >&2; exit 1; }
grep -F "$operator" <<<"$log" | grep -F "$subscription" | grep -qF "extend by 7 days" ||
  { echo "e2e-support: subdash log lacks the extension: $log" >&2; exit 1; }
grep -F "$operator" <<<"$log" | grep -qF "status of mass extension $mass (dashboard poll)" ||
  { echo "e2e-support: subdash log lacks the dashboard's poll: $log" >&2; exit 1; }
echo "e2e-support: ok"
