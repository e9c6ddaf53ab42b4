#!/usr/bin/env bash
# Train the line recognizer from scratch: generates crops on the fly, checkpoints to
# runs/recognizer (resumes from there when re-run), exports models/recognizer/
# (model.safetensors fp16, config.json, vocab.json) every 10 minutes and at the end.
#
#   scripts/train.sh                 # the full run (140 min budget)
#   scripts/train.sh --minutes 90    # any `hawiya train` option passes through
#
# About a third of the crops are the pipeline's own: documents rendered by the
# generator (seeds 11 to 14, never used for evaluation), rectified with their true
# outline and cut by the line finder (`hawiya eval docs --export-lines`), so the
# model sees the blur and resampling of rectified phone photos. They are made once,
# under runs/pipeline-crops (about 37,500 crops, 8 minutes on two cores); set
# PIPELINE_CROPS=0 to train on generated crops alone.
#
# One compute thread: on two shared cores, candle's multi-threaded kernels were 3x
# slower per step than a single thread whenever another process was busy.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin hawiya
hawiya="${CARGO_TARGET_DIR:-target}/release/hawiya"

extra=()
if [ "${PIPELINE_CROPS:-1}" != 0 ]; then
    crops=runs/pipeline-crops
    # name seed capture count
    sets=("photo 12 photo 1500" "photo14 14 photo 1500" "scan 13 scan 500" "mixed 11 mixed 700")
    for set in "${sets[@]}"; do
        read -r name seed capture n <<<"$set"
        if [ ! -f "$crops/lines-$name/labels.jsonl" ]; then
            "$hawiya" synth --n "$n" --seed "$seed" --capture "$capture" --out "$crops/docs-$name"
            "$hawiya" eval docs --dir "$crops/docs-$name" --export-lines "$crops/lines-$name"
            rm -rf "$crops/docs-$name"
        fi
        extra+=(--extra-lines "$crops/lines-$name")
    done
    extra+=(--extra-share 0.35)
fi

export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-1}"
exec "$hawiya" train "${extra[@]}" "$@"
