#!/usr/bin/env bash
# Runs the test suite, first installing the fonts the synthetic renderer prints with
# (scripts/fonts.sh: idempotent, a second run only checks the font cache), then the
# demo page's tests in a real browser (scripts/browser_test.sh installs Chromium and
# playwright-core the same way).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/fonts.sh

log=$(mktemp)
browser_log=$(mktemp)
trap 'rm -f "$log" "$browser_log"' EXIT
status=0
cargo test --all-targets "$@" 2>&1 | tee "$log" || status=$?
scripts/browser_test.sh 2>&1 | tee "$browser_log" || status=1
echo
echo "== test summary =="
grep -E "^test result:|^error|FAILED|panicked" "$log" || true
grep -E "^# (tests|pass|fail) |^not ok" "$browser_log" | sed 's/^/browser /' || true
awk '/^test result:/ { p += $4; f += $6; s += $8 }
     /^# pass / { p += $3 } /^# fail / { f += $3 } /^# skipped / { s += $3 }
     END { printf "total: %d passed, %d failed, %d skipped\n", p, f, s }' "$log" "$browser_log"
exit "$status"
