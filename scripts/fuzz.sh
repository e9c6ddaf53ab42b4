#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/) for SECONDS each (default 60)
# from its committed seeds (fuzz/seeds/<target>/) plus the corpus grown by earlier
# runs (fuzz/corpus/<target>/, not committed), and prints the executions of each.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# cargo-fuzz needs a nightly compiler's sanitizer flags; on a stable toolchain they
# are let through with RUSTC_BOOTSTRAP=1. Where the fuzz targets cannot be built
# (no cargo-fuzz and no registry to install it from, a toolchain or platform
# without the sanitizer), this says so on one line and exits 0; targets that no
# longer compile against the crate fail.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode_image decode_pdf multipart records)

skip() {
    echo "fuzz: skipped: $1"
    exit 0
}

if ! cargo fuzz --version > /dev/null 2>&1; then
    cargo install --locked cargo-fuzz > /dev/null 2>&1 || skip "cargo-fuzz is not installed and could not be"
fi
rustc --version | grep -q nightly || export RUSTC_BOOTSTRAP=1
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
if ! cargo fuzz build -O > "$build_log" 2>&1; then
    tail -20 "$build_log"
    # Code that does not compile fails; a toolchain that cannot build them skips.
    if grep -q '^error\[E[0-9]' "$build_log"; then
        echo "fuzz: the fuzz targets do not compile"
        exit 1
    fi
    skip "this toolchain cannot build the fuzz targets"
fi

status=0
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target"
    log="$(mktemp)"
    started=$SECONDS
    # -rss_limit_mb: a decode that costs more than 2 GiB is a crash, as a bomb would be.
    if cargo fuzz run -O "$target" "corpus/$target" "seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 \
        > "$log" 2>&1; then
        outcome=ok
    else
        outcome=FAILED
        status=1
        tail -40 "$log"
    fi
    runs=$(grep -Eo '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
    echo "fuzz: $target: $outcome, $runs executions in $((SECONDS - started)) s"
    rm -f "$log"
done
exit "$status"
