#!/usr/bin/env python3
"""Tesseract baseline on labelled line crops, in the same format as `hawiya eval lines`.

    python3 scripts/tesseract_lines.py --dir DIR [--json] [--lang ara] [--jobs 2]

DIR holds labels.jsonl (file, text, category) as written by `hawiya synth --lines`.
Runs Debian's `tesseract` (tesseract-ocr-ara) once per crop in single-line mode
(--psm 7) with OMP_THREAD_LIMIT=1 (OpenMP threads made it 7x slower here). Persian
digit and letter forms that Tesseract emits are mapped to their Arabic equivalents
and whitespace is collapsed before scoring, so only real misreadings count.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
from collections import OrderedDict

PERSIAN = str.maketrans({**{chr(0x06F0 + i): chr(0x0660 + i) for i in range(10)}, "ی": "ي", "ک": "ك"})
CATEGORIES = ["name", "address", "national_id", "date", "latin", "other"]


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j - 1] + (ca != cb), prev[j] + 1, cur[j - 1] + 1)
        prev = cur
    return prev[len(b)]


def read(path: str, lang: str) -> str:
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    out = subprocess.run(
        ["tesseract", path, "stdout", "-l", lang, "--psm", "7"],
        capture_output=True, text=True, env=env, check=False,
    ).stdout
    return " ".join(out.translate(PERSIAN).split())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--lang", default="ara")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with open(os.path.join(args.dir, "labels.jsonl"), encoding="utf-8") as f:
        labels = [json.loads(line) for line in f if line.strip()]
    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        readings = list(pool.map(lambda l: read(os.path.join(args.dir, l["file"]), args.lang), labels))
    seconds = time.time() - started

    tallies = OrderedDict()
    for cat in CATEGORIES + sorted({l["category"] for l in labels} - set(CATEGORIES)) + ["all"]:
        tallies[cat] = {"lines": 0, "exact": 0, "errors": 0, "chars": 0}
    for label, got in zip(labels, readings):
        for cat in (label["category"], "all"):
            t = tallies[cat]
            t["lines"] += 1
            t["exact"] += int(got == label["text"])
            t["errors"] += edit_distance(label["text"], got)
            t["chars"] += len(label["text"])
    scores = OrderedDict(
        (cat, {"cer": t["errors"] / max(t["chars"], 1), "exact": t["exact"] / max(t["lines"], 1), "count": t["lines"]})
        for cat, t in tallies.items() if t["lines"]
    )
    if args.json:
        print(json.dumps(scores))
    else:
        print(f"{'category':<12} {'lines':>7} {'CER %':>9} {'exact %':>9}")
        for cat, s in scores.items():
            print(f"{cat:<12} {s['count']:>7} {100 * s['cer']:>9.3f} {100 * s['exact']:>9.2f}")
        print(f"{len(labels)} crops in {seconds:.1f} s ({len(labels) / seconds:.0f} crops/s, tesseract -l {args.lang}, {args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
