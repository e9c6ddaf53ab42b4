#!/usr/bin/env bash
# The demo page of `hawiya serve` in a real browser: installs Debian's chromium and
# npm's playwright-core when missing, builds hawiya, and runs tests/browser/ with
# node's test runner against a real server and the shipped models.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null; then
    echo "installing chromium"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium
fi
# Exactly the locked version; npm's cache makes a second run quick.
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
cargo build --bin hawiya
export HAWIYA_BIN="$PWD/target/debug/hawiya"

echo
echo "== browser tests =="
node --test tests/browser/demo.test.mjs
