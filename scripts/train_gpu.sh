#!/usr/bin/env bash
# Train the line recognizer in one call on a lent GPU machine (one NVIDIA H100 or
# H200, 16 cores, no network): everything it needs is packed here first.
#
#   scripts/train_gpu.sh pack [MODEL_DIR]   # here: .gpu/ holds a CUDA build of hawiya
#                                           # (scripts/cuda_portable.sh), the font cache
#                                           # and the model to start from (default
#                                           # models/recognizer); keep .gpu/ out of git
#   scripts/train_gpu.sh run SECONDS [hawiya train options]
#                                           # there, from the repository root: trains
#                                           # from .gpu/init on generated crops while
#                                           # the CPU cores cut pipeline crops, then
#                                           # with them mixed in, until SECONDS after
#                                           # the start; the export lands in
#                                           # $OUT/recognizer, the log in $OUT/log.txt
#
# Then here: `hawiya calibrate --model DIR ...` as at the end of scripts/train.sh.
# CROP_SEED (default 21) picks the documents the crops are cut from (the seed and the
# two after it: photos, scans, mixed captures), DOCS (default 300) how many per
# cutting job, eleven jobs in all (about 31,000 crops in 110 s on 16 idle cores;
# crops cut after the training's time is spent are not used).
# A step of 256 crops takes about 145 ms on an H100 at the shipped shape (6 encoder
# and 3 decoder layers); CUDA libraries are found where the machine
# keeps them (the driver's libcuda, the toolkit's cuBLAS, cuRAND and cudart).
set -euo pipefail
cd "$(dirname "$0")/.."

pack() {
    local init=${1:-models/recognizer}
    scripts/cuda_portable.sh
    mkdir -p .gpu
    cp "${CARGO_TARGET_DIR:-target/cuda}/release/hawiya.gz" .gpu/
    tar czf .gpu/fonts.tar.gz -C "${HAWIYA_FONT_DIR:-$HOME/.cache/hawiya/fonts}/.." \
        "$(basename "${HAWIYA_FONT_DIR:-$HOME/.cache/hawiya/fonts}")"
    rm -rf .gpu/init
    mkdir -p .gpu/init
    cp "$init"/config.json "$init"/vocab.json "$init"/model.safetensors .gpu/init/
    du -sh .gpu
}

# cuda_libraries: puts the folders of the CUDA libraries the build links on the
# library path.
cuda_libraries() {
    local dirs="" lib path
    for lib in libcuda.so.1 libcudart.so.13 libcublas.so.13 libcurand.so.10; do
        path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
        [ -n "$path" ] || path=$(find /usr/local /opt /usr/lib -name "$lib" 2>/dev/null | head -1)
        [ -n "$path" ] || { echo "no $lib on this machine" >&2; return 1; }
        dirs="$dirs:$(dirname "$path")"
    done
    export LD_LIBRARY_PATH="${dirs#:}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

run() {
    local budget=$1
    shift
    local start=$SECONDS out=${OUT:-/tmp/out} work=${WORK:-/tmp/hawiya-gpu}
    local seed=${CROP_SEED:-21} docs=${DOCS:-300}
    mkdir -p "$work/crops" "$out"
    exec > >(tee -a "$out/log.txt") 2>&1
    local hawiya=${HAWIYA:-$work/hawiya}
    [ -x "$hawiya" ] || { gunzip -c .gpu/hawiya.gz >"$hawiya" && chmod +x "$hawiya"; }
    [ -d "$work/fonts" ] || tar xzf .gpu/fonts.tar.gz -C "$work"
    export HAWIYA_FONT_DIR=$work/$(tar tzf .gpu/fonts.tar.gz | head -1 | cut -d/ -f1)
    local device=${DEVICE:-cuda}
    [ "$device" = cpu ] || cuda_libraries

    # The rest of the budget, less a minute for the last export and the copy back and
    # half a minute for the restart below.
    local minutes
    minutes=$(awk -v s=$((budget - (SECONDS - start) - 90)) 'BEGIN { printf "%.2f", s / 60 }')
    train() {
        RAYON_NUM_THREADS=3 "$hawiya" train --device "$device" --init .gpu/init \
            --out "$out/recognizer" --checkpoints "$work/checkpoints" --minutes "$minutes" \
            --batch-size "${BATCH:-256}" --export-minutes 1 --log-every 100 "$@" 2>&1 |
            grep --line-buffered -vE '^\s*$|%\|'
    }

    # While the cores cut pipeline crops, the GPU already trains on generated crops,
    # checkpointing every 15 s; once the crops are cut, that run is stopped and
    # resumed from its checkpoint with the crops mixed in. The learning rate follows
    # the elapsed training time the checkpoint keeps, so it goes on where it was.
    train --data-threads 4 --checkpoint-minutes 0.25 "$@" &
    local first=$!

    # Documents of the training fonts and faces, rectified with their true outline
    # and cut by the line finder, as scripts/train.sh makes its pipeline crops.
    cut() { # name capture seed start
        local dir=$work/crops/$1
        RAYON_NUM_THREADS=1 "$hawiya" synth --n "$docs" --seed "$3" --start "$4" \
            --capture "$2" --out "$dir.docs" >/dev/null &&
            RAYON_NUM_THREADS=1 "$hawiya" eval docs --dir "$dir.docs" --export-lines "$dir" \
                >"$dir.log"
        rm -rf "$dir.docs"
    }
    local jobs=() i
    # No whole-page captures: an A4 page at up to 600 dpi renders about ten times
    # slower than a card, and 800 of them kept the cores busy for 573 s.
    for i in 0 1 2 3 4 5; do cut "photo$i" photo "$seed" $((i * docs)) & jobs+=($!); done
    for i in 0 1 2; do cut "scan$i" scan $((seed + 1)) $((i * docs)) & jobs+=($!); done
    for i in 0 1; do cut "mixed$i" mixed $((seed + 2)) $((i * docs)) & jobs+=($!); done
    for i in "${jobs[@]}"; do wait "$i" || echo "a cutting job failed; training without its crops"; done
    local extra=() dir
    for dir in "$work"/crops/*/; do
        [ -f "$dir/labels.jsonl" ] && extra+=(--extra-lines "$dir")
    done
    echo "crops cut in $((SECONDS - start)) s"

    pkill -TERM -P "$first" -x hawiya || true
    wait "$first" || true
    train --data-threads "${DATA_THREADS:-12}" --checkpoint-minutes 100 \
        --extra-share 0.3 "${extra[@]}" "$@"
    echo "finished in $((SECONDS - start)) s"
}

case "${1:-}" in
pack) pack "${@:2}" ;;
run) run "${@:2}" ;;
*)
    sed -n '2,14p' "$0"
    exit 2
    ;;
esac
