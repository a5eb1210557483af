#!/usr/bin/env bash
# Debian packages the tests drive, installed when missing: Chromium (browser tests, with CJK
# fonts) and nginx (the shipped nginx configuration is checked and run in front of an app node).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-noto-cjk)
{ command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || missing+=(nginx-light)
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "missing ${missing[*]} and this user cannot install them; their tests will be skipped" >&2
    exit 0
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The package starts nginx on port 80 where it can; the tests run their own.
if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true; fi
