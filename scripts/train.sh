#!/usr/bin/env bash
# Train the line recognizer from scratch: generates crops on the fly, checkpoints to
# runs/recognizer (resumes from there when re-run), exports models/recognizer/
# (model.safetensors fp16, config.json, vocab.json) every 10 minutes and at the end.
#
#   scripts/train.sh                 # the full run (140 min budget)
#   scripts/train.sh --minutes 90    # any `hawiya train` option passes through
#
# One compute thread: on two shared cores, candle's multi-threaded kernels were 3x
# slower per step than a single thread whenever another process was busy.
set -euo pipefail
cd "$(dirname "$0")/.."
export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-1}"
cargo build --release --bin hawiya
exec "${CARGO_TARGET_DIR:-target}/release/hawiya" train "$@"
