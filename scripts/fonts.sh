#!/usr/bin/env bash
# Installs the fonts `hawiya synth` prints with (fonts/families.toml) into the font
# cache: HAWIYA_FONT_DIR, or ~/.cache/hawiya/fonts. Idempotent; `--dir DIR` picks
# another folder.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/fonts.py "$@"
