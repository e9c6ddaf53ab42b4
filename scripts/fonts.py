#!/usr/bin/env python3
"""Installs every font file of fonts/families.toml into the font cache that
`hawiya synth` reads (HAWIYA_FONT_DIR, default ~/.cache/hawiya/fonts).

Idempotent: files already in the cache are left alone, so a second run only checks.
Debian sources are installed with apt-get and their files copied; npm sources
(@fontsource packages) are fetched with `npm pack`, and their Arabic and Latin WOFF2
subsets of one weight merged into one TTF with fontTools (installed into a private
virtual environment beside the cache when missing).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INVENTORY = ROOT / "fonts" / "families.toml"
# The fontTools and Brotli that convert and merge the npm fonts.
FONTTOOLS = "4.68.0"
BROTLI = "1.2.1"
# The @fontsource weight each slot of a family is built from.
NPM_WEIGHTS = {"regular": 400, "bold": 700}


def default_dir() -> Path:
    if os.environ.get("HAWIYA_FONT_DIR"):
        return Path(os.environ["HAWIYA_FONT_DIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "hawiya" / "fonts"


def entries(inventory: dict):
    """(name, source, {slot: file}) of every family and face."""
    for table in ("arabic", "latin", "mrz"):
        for entry in inventory.get(table, []):
            files = {slot: entry[slot] for slot in NPM_WEIGHTS if slot in entry}
            yield entry["name"], entry["source"], files


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def install_debian(packages: set[str]) -> None:
    run([str(Path(__file__).with_name("apt_install.sh")), *sorted(packages)])


def debian_file(package: str, file: str) -> Path:
    listed = run(["dpkg", "-L", package], capture_output=True, text=True).stdout
    for line in listed.splitlines():
        if line.endswith("/" + file) and Path(line).is_file():
            return Path(line)
    sys.exit(f"fonts: package {package} has no file {file}")


def font_tools(cache: Path) -> str:
    """A Python with fontTools and WOFF2 support, pinned so that the same inventory
    gives the same font files: a private virtual environment beside the cache."""
    venv = cache.parent / "fonttools-venv"
    python = venv / "bin" / "python3"
    check = [str(python), "-c", f"import brotli, fontTools; assert fontTools.version == {FONTTOOLS!r}"]
    if not python.exists() or subprocess.run(check, capture_output=True).returncode != 0:
        print(f"fonts: installing fonttools {FONTTOOLS} and brotli into {venv}", flush=True)
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(python), "-m", "pip", "install", "-q", f"fonttools=={FONTTOOLS}", f"brotli=={BROTLI}"])
    return str(python)


# Runs under the interpreter that has fontTools: merges the Arabic and Latin subsets
# of one weight of an unpacked @fontsource package into one TTF.
MERGE = r"""
import sys
from fontTools.merge import Merger
from fontTools.ttLib import TTFont
out, *woff2 = sys.argv[1:]
ttfs = []
# Timestamps stay as the package has them: the same package, the same bytes.
for i, path in enumerate(woff2):
    font = TTFont(path, recalcTimestamp=False)
    font.flavor = None
    ttf = f"{out}.{i}.ttf"
    font.save(ttf)
    ttfs.append(ttf)
first = TTFont(ttfs[0], recalcTimestamp=False)
merged = Merger().merge(ttfs) if len(ttfs) > 1 else first
# The merger stamps the time of the merge; keep the package's.
merged["head"].created = first["head"].created
merged["head"].modified = first["head"].modified
merged.recalcTimestamp = False
merged.save(out)
"""


def install_npm(spec: str, files: dict[str, str], cache: Path, python: str) -> None:
    package, version = spec.rsplit("@", 1)
    slug = package.split("/", 1)[1]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        print(f"fonts: npm pack {package}@{version}", flush=True)
        run(
            ["npm", "pack", "--silent", "--pack-destination", str(tmp), f"{package}@{version}"],
            capture_output=True,
        )
        (tarball,) = tmp.glob("*.tgz")
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="data")
        for slot, file in files.items():
            weight = NPM_WEIGHTS[slot]
            subsets = [
                tmp / "package" / "files" / f"{slug}-{subset}-{weight}-normal.woff2"
                for subset in ("arabic", "latin")
            ]
            subsets = [s for s in subsets if s.exists()]
            if not subsets or "arabic" not in subsets[0].name:
                sys.exit(f"fonts: {package}@{version} has no Arabic subset of weight {weight}")
            partial = cache / f".{file}.partial"
            run([python, "-c", MERGE, str(partial), *map(str, subsets)])
            for leftover in cache.glob(f".{file}.partial.*.ttf"):
                leftover.unlink()
            partial.rename(cache / file)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=default_dir(), help="the font cache")
    args = parser.parse_args()
    cache: Path = args.dir
    cache.mkdir(parents=True, exist_ok=True)
    with INVENTORY.open("rb") as f:
        inventory = tomllib.load(f)

    todo = []
    total = 0
    for name, source, files in entries(inventory):
        total += len(files)
        missing = {slot: file for slot, file in files.items() if not (cache / file).exists()}
        if missing:
            todo.append((name, source, missing))
    if not todo:
        print(f"fonts: all {total} files present in {cache}")
        return

    debian = {s.split(":", 1)[1] for _, s, _ in todo if s.startswith("debian:")}
    install_debian(debian)
    python = None
    for name, source, missing in todo:
        kind, _, spec = source.partition(":")
        if kind == "debian":
            for file in missing.values():
                shutil.copyfile(debian_file(spec, file), cache / file)
        elif kind == "npm":
            python = python or font_tools(cache)
            install_npm(spec, missing, cache, python)
        else:
            sys.exit(f"fonts: {name}: unknown source {source!r}")
    print(f"fonts: {total} files in {cache}")


if __name__ == "__main__":
    main()
