#!/usr/bin/env bash
# Load benchmark of a running `hawiya serve`: upload latency p50/p99 and documents/s
# at concurrency 1, 8 and 32 (Flow A: upload, then ReadImage?isBlocked=true).
#
#   scripts/load.sh --host 127.0.0.1 --port 8080 --key "$KEY" --image card.jpg
#   scripts/load.sh --flow b ...            # Flow B, one call per document
#   scripts/load.sh --simulate-ms 200       # HTTP layer alone, pipeline simulated
#
# The key needs enough credits: `hawiya keys add --credits 100000`.
# All other options: scripts/load.sh --help
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --quiet --example load -- "$@"
