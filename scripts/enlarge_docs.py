#!/usr/bin/env python3
"""Enlarges every image of a `hawiya synth` folder to a phone camera's size.

The generator renders photos at most 1,600 px long; phones send 12 MP (4032x3024).
This writes a copy of SRC in which each image is enlarged (Lanczos, which also
smooths pixel noise away as a phone's processing does) so its long side is
--long-side pixels, and truth.jsonl's coordinates are scaled to match, so that
`hawiya eval docs --dir DST` measures the pipeline on uploads of that size.

    python3 scripts/enlarge_docs.py SRC DST [--long-side 4032] [--limit N]

Needs Pillow (`pip install pillow`).
"""

import argparse
import json
import os

from PIL import Image


def scaled(value, factor):
    if isinstance(value, list):
        return [scaled(v, factor) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value * factor
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src")
    parser.add_argument("dst")
    parser.add_argument("--long-side", type=int, default=4032)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--quality", type=int, default=92, help="JPEG quality")
    args = parser.parse_args()

    os.makedirs(args.dst, exist_ok=True)
    with open(os.path.join(args.src, "truth.jsonl"), encoding="utf-8") as src, open(
        os.path.join(args.dst, "truth.jsonl"), "w", encoding="utf-8"
    ) as dst:
        for index, line in enumerate(src):
            if args.limit is not None and index >= args.limit:
                break
            record = json.loads(line)
            image = Image.open(os.path.join(args.src, record["file"]))
            factor = args.long_side / max(image.size)
            size = (round(image.width * factor), round(image.height * factor))
            out = os.path.join(args.dst, record["file"])
            image.convert("RGB").resize(size, Image.LANCZOS).save(out, quality=args.quality)
            record["width"], record["height"] = size
            record["corners"] = scaled(record["corners"], factor)
            for printed in record["lines"] + record.get("fixed", []):
                printed["quad"] = scaled(printed["quad"], factor)
                printed["bbox"] = scaled(printed["bbox"], factor)
            dst.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
