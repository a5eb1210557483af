#!/usr/bin/env bash
# Debian packages the site itself needs, installed when missing: Pango with HarfBuzz's subsetter
# (WeasyPrint draws the invoice PDFs with them) and the Noto CJK fonts (Chinese names and
# addresses on invoices). Each package is checked with dpkg first; apt-get update runs once,
# only when something is missing.
set -euo pipefail
packages=(libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-noto-cjk)
if ! command -v dpkg >/dev/null 2>&1; then
  echo "not a Debian system: install Pango (1.44 or newer) and Noto Sans CJK yourself for the invoice PDFs" >&2
  exit 0
fi
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "missing ${missing[*]} and this user cannot install them; invoice PDFs will not render" >&2
    exit 0
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
