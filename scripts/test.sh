#!/usr/bin/env bash
# Runs the test suite, first installing the fonts the synthetic renderer prints with
# (scripts/fonts.sh: idempotent, a second run only checks the font cache).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/fonts.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --all-targets "$@" 2>&1 | tee "$log" || status=$?
echo
echo "== test summary =="
grep -E "^test result:|^error|FAILED|panicked" "$log" || true
exit "$status"
