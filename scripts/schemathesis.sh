#!/usr/bin/env bash
# Property-based tests of a running `hawiya serve` against its own /openapi.json
# with schemathesis (PyPI), every check on. Prints schemathesis's summary.
#
#   scripts/schemathesis.sh http://127.0.0.1:8080 "$KEY" [extra `st run` options]
#
# The key needs credits: every upload schemathesis makes that reads a document
# spends one (`hawiya keys add --credits 1000000`).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: scripts/schemathesis.sh BASE_URL KEY [st run options]}
key=${2:?usage: scripts/schemathesis.sh BASE_URL KEY [st run options]}
shift 2
venv=target/schemathesis-venv
if [ ! -x "$venv/bin/st" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet schemathesis
fi
exec "$venv/bin/st" --config-file scripts/schemathesis.toml run "$base/openapi.json" \
    -H "APIKEY: $key" --checks all "$@"
