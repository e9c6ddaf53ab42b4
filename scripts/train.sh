#!/usr/bin/env bash
# Train the line recognizer from scratch: generates crops on the fly, checkpoints to
# runs/recognizer (resumes from there when re-run), exports models/recognizer/
# (model.safetensors fp16, config.json, vocab.json) every 10 minutes and at the end,
# then fits the confidence calibration (calibration.json) on held-out crops.
#
#   scripts/train.sh                 # the full run (140 min budget)
#   scripts/train.sh --minutes 90    # any `hawiya train` option passes through
#   HAWIYA_FEATURES=cuda scripts/train.sh --device cuda --batch-size 256
#                                    # on an NVIDIA GPU (about 110 ms a step of 256 on an H100;
#                                    # all cores but two render crops, see --data-threads)
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
cargo build --release --bin hawiya ${HAWIYA_FEATURES:+--features "$HAWIYA_FEATURES"}
hawiya="${CARGO_TARGET_DIR:-target}/release/hawiya"

# pipeline_crops DIR SYNTH_ARGS...: renders documents with `hawiya synth SYNTH_ARGS`
# and keeps only the labelled crops the line finder cuts from them, in DIR (once).
pipeline_crops() {
    local out=$1
    shift
    if [ ! -f "$out/labels.jsonl" ]; then
        "$hawiya" synth "$@" --out "$out.docs"
        "$hawiya" eval docs --dir "$out.docs" --export-lines "$out"
        rm -rf "$out.docs"
    fi
}

extra=()
if [ "${PIPELINE_CROPS:-1}" != 0 ]; then
    crops=runs/pipeline-crops
    # name seed capture count
    sets=("photo 12 photo 1500" "photo14 14 photo 1500" "scan 13 scan 500" "mixed 11 mixed 700")
    for set in "${sets[@]}"; do
        read -r name seed capture n <<<"$set"
        pipeline_crops "$crops/lines-$name" --n "$n" --seed "$seed" --capture "$capture"
        extra+=(--extra-lines "$crops/lines-$name")
    done
    extra+=(--extra-share 0.35)
fi

export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-1}"
"$hawiya" train "${extra[@]}" "$@"

# Calibrate the confidences (`calibration.json` beside the weights) on crops of
# tuning seeds never trained on: 300 NID-front scans (4243), 300 NID-front photos
# (4245), both cut by the line finder, and 1,000 generated lines of every kind (4246), printing
# only what documents print (`--texts documents`), as the service reads.
out=models/recognizer
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; i++)); do
    if [ "${args[i]}" = --out ]; then out="${args[i + 1]}"; fi
done
tuning=runs/calibration-crops
calibrate=()
for set in "4243 scan" "4245 photo"; do
    read -r seed capture <<<"$set"
    pipeline_crops "$tuning/lines-$seed" --kind nid-front --n 300 --seed "$seed" --capture "$capture"
    calibrate+=(--dir "$tuning/lines-$seed")
done
if [ ! -f "$tuning/lines-4246/labels.jsonl" ]; then
    "$hawiya" synth --lines --texts documents --n 1000 --seed 4246 --out "$tuning/lines-4246"
fi
"$hawiya" calibrate --model "$out" "${calibrate[@]}" --dir "$tuning/lines-4246"
