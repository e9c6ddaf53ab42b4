#!/usr/bin/env bash
# The demo page of `hawiya serve` in a real browser: installs Debian's chromium (and
# an Arabic font for it) and npm's playwright-core when missing, builds hawiya, and
# runs tests/browser/ with node's test runner against a real server and the shipped
# models. scripts/test.sh runs it after cargo test and adds up its TAP totals.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/apt_install.sh chromium fonts-noto-core
# Exactly the locked version; npm's cache makes a second run quick.
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
cargo build --bin hawiya
export HAWIYA_BIN="$PWD/target/debug/hawiya"

echo
echo "== browser tests =="
node --test --test-reporter=tap tests/browser/demo.test.mjs
