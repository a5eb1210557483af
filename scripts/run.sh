#!/usr/bin/env bash
# `make run`: what a start needs, each step timed, then the site served. Once the first page
# answers and the search index holds the database's listings, the steps' seconds and the total
# since `make run` began are printed (on a later start the steps find their work done).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${PORT:-8000}"
TP=.venv/bin/tradepost
started=$EPOCHREALTIME
names=()
seconds=()

elapsed() { awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $1 }"; }

# step NAME COMMAND...: run it and note its seconds.
step() {
  local name=$1 begun=$EPOCHREALTIME
  shift
  "$@"
  names+=("$name")
  seconds+=("$(elapsed "$begun")")
}

step "system packages" bash scripts/install-system-libs.sh
step "venv and install" make --no-print-directory install
step "translations" "$TP" compiletranslations -v0
# Static files (whitenoise compresses each one) are collected beside the database's steps:
# they need nothing of each other, and each keeps one core busy.
static_begun=$EPOCHREALTIME
"$TP" collectstatic --noinput -v0 &
static=$!
step "migrate" "$TP" migrate --noinput -v0
step "demo" "$TP" demo --if-empty
wait "$static"
names+=("collectstatic (beside)")
seconds+=("$(elapsed "$static_begun")")

# The served site's first page, then its search index caught up (the worker builds it from
# the database on a first start): what /healthz says of this node.
watch() {
  local begun=$EPOCHREALTIME
  .venv/bin/python scripts/wait_for_site.py "http://127.0.0.1:$PORT" page || return 0
  names+=("first page")
  seconds+=("$(elapsed "$begun")")
  begun=$EPOCHREALTIME
  .venv/bin/python scripts/wait_for_site.py "http://127.0.0.1:$PORT" index || return 0
  names+=("index")
  seconds+=("$(elapsed "$begun")")
  echo
  echo "Started in $(elapsed "$started") s:"
  local i
  for i in "${!names[@]}"; do
    printf '  %-24s %6.1f s\n' "${names[$i]}" "${seconds[$i]}"
  done
}
watch &
exec "$TP" serve --port "$PORT"
