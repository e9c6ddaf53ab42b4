#!/usr/bin/env bash
# The demo page of `hawiya serve` in a real browser: installs Debian's chromium (and
# an Arabic font for it) and npm's playwright-core when missing, builds hawiya, and
# runs tests/browser/ with node's test runner against a real server and the shipped
# models. scripts/test.sh runs it after cargo test and adds up its TAP totals.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(chromium fonts-noto-core)
missing=()
for pkg in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
    echo "installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
# Exactly the locked version; npm's cache makes a second run quick.
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
cargo build --bin hawiya
export HAWIYA_BIN="$PWD/target/debug/hawiya"

echo
echo "== browser tests =="
node --test --test-reporter=tap tests/browser/demo.test.mjs
