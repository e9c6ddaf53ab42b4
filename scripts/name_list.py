#!/usr/bin/env python3
"""Writes src/domain/names_egy.txt, the reader's list of Egyptian names, from the
egy-names package (MIT; 44,626 name lemmas counted in 3.79 M Egyptian student records,
2017-2024): every lemma of its "common" or "normal" frequency class with its main
Latin spelling, gender (m, f or n for either), religion (m, c or n for either) and role
(g given name, f family name, k kunya, t tribal), one `arabic|latin|gender|religion|role`
per line. Spellings are joined the way ours are (`El Sawy` -> `Elsawy`); one that is not
plain ASCII is left empty.

Rare lemmas and the package's spelling variants are left out on purpose: they hold the
records' typos (`اجمد`, `ابراهبم`), which are exactly the misreadings the list must not
vouch for.

    pip download egy-names==0.3.6 --no-deps -d /tmp/egy
    python3 scripts/name_list.py /tmp/egy/egy_names-0.3.6-py3-none-any.whl
"""

import gzip
import json
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "domain" / "names_egy.txt"
ARABIC = {chr(c) for c in range(0x0621, 0x064B)} | {" "}


def joined(latin: str) -> str:
    """`El Sawy` -> `Elsawy`, as hawiya spells names; empty unless plain ASCII."""
    parts = re.split(r"[\s'-]+", latin or "")
    word = "".join(parts)
    if not re.fullmatch(r"[A-Za-z]+", word):
        return ""
    return word[0].upper() + word[1:].lower()


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as z:
        data = json.loads(gzip.decompress(z.read("egy_names/data/names.json.gz")))
        licence = z.read("egy_names-0.3.6.dist-info/licenses/LICENSE").decode()
    lemmas = {}
    for n in data["names"]:
        arabic = n["a"].strip()
        if n["fc"] in ("c", "n") and arabic and set(arabic) <= ARABIC:
            tags = "|".join(n.get(k) or "n" for k in ("g", "r", "l"))
            lemmas.setdefault(arabic, f"{joined(n['e'])}|{tags}")
    header = [
        "# Egyptian name lemmas (arabic|latin|gender|religion|role) of the common and normal frequency classes of egy-names 0.3.6",
        "# (https://github.com/afify/egy-names), written by scripts/name_list.py. Its licence:",
        *("# " + line if line else "#" for line in licence.strip().splitlines()),
    ]
    lines = [f"{arabic}|{rest}" for arabic, rest in sorted(lemmas.items())]
    OUT.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{len(lemmas)} lemmas -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
