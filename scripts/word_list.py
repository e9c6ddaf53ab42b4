#!/usr/bin/env python3
"""Writes src/synth/texts/words_cldr.txt, ordinary Arabic words for the generator's
training crops (country, language, month, unit and currency names...), from the Arabic
locale data of the Unicode CLDR as the babel package ships it (Unicode License v3, a
permissive licence whose notice travels with the file): every word of two letters or
more made only of Arabic letters, once, sorted.

    pip download babel==2.19.0 --no-deps -d /tmp/babel
    python3 scripts/word_list.py /tmp/babel/babel-2.19.0-py3-none-any.whl
"""

import pickle
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "synth" / "texts" / "words_cldr.txt"
WORD = re.compile(r"[\u0621-\u064a]{2,}")


def strings(value):
    """Every string inside the nested dicts, lists and objects of a locale's data."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, (list, tuple, set)):
        for item in value:
            yield from strings(item)
    elif hasattr(value, "__dict__"):
        yield from strings(vars(value))


class Loader(pickle.Unpickler):
    """Unpickles babel's locale data without importing babel: its few classes load
    as plain objects whose attributes we walk."""

    def find_class(self, module, name):
        return type(name, (), {"__setstate__": lambda self, state: self.__dict__.update(state)})


def main(wheel: str) -> None:
    with zipfile.ZipFile(wheel) as z:
        data = Loader(z.open("babel/locale-data/ar.dat")).load()
        licence = z.read("babel/locale-data/LICENSE.unicode").decode()
    words = sorted({w for s in strings(data) for w in WORD.findall(s)})
    header = [
        "# Arabic words of the Unicode CLDR locale data (ar), as babel 2.19.0 ships it,",
        "# written by scripts/word_list.py. Its licence:",
        *("# " + line if line else "#" for line in licence.strip().splitlines()),
    ]
    OUT.write_text("\n".join(header + words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
