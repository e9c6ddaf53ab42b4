#!/usr/bin/env bash
# Runs the test suite, installing the font packages the synthetic renderer needs.
set -euo pipefail
cd "$(dirname "$0")/.."

fonts=(fonts-noto-core fonts-kacst-one fonts-arabeyes fonts-hosny-amiri fonts-sil-harmattan fonts-ocr-b fonts-dejavu-core)
missing=()
for pkg in "${fonts[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
    echo "installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --all-targets "$@" 2>&1 | tee "$log" || status=$?
echo
echo "== test summary =="
grep -E "^test result:|^error|FAILED|panicked" "$log" || true
exit "$status"
