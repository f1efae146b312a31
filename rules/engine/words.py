"""French agreement with a character's grammatical gender.

The engine writes the inclusive form (« mort·e », « stabilisé·e, inconscient·e », « Gêné·e »);
a character who is « il » or « elle » reads the masculine or the feminine form of each word
that carries the mark, and a character who is « iel », or whose gender nobody gave, keeps it.
"""

from __future__ import annotations

import re

IL, ELLE, IEL = "il", "elle", "iel"
GENDERS = (IL, ELLE, IEL)

# The inclusive mark at a word's end: "mort·e", "inconscient·e", not "joueur·euse".
_MARK = re.compile(r"·e\b")


def agree(text: str, gender: str = IEL) -> str:
    """`text`, written with inclusive marks (« mort·e »), agreeing with `gender`:
    « mort » (il), « morte » (elle), « mort·e » (iel, or an unknown gender)."""
    if gender == IL:
        return _MARK.sub("", text)
    if gender == ELLE:
        return _MARK.sub("e", text)
    return text


def inclusive(word: str) -> str:
    """A masculine word with its inclusive mark, for `agree`: "Gêné" → "Gêné·e"."""
    return word if word.endswith(("e", "·e")) else f"{word}·e"
