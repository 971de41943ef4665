"""Player names that cannot pose as the operator or as one another: a name is refused
when it reads as a reserved name once case, accents, digits and separators are set aside
and every Unicode look-alike is read as the Latin letter it imitates (the Unicode
confusables, through the ``confusable-homoglyphs`` library), or when it mixes scripts with
look-alikes; and two players' names may not have the same :func:`name_key` (compatibility
forms, case, accents and look-alikes set aside, digits and signs kept).

>>> RESERVED = ("operator", "house")
>>> [name_refusal(n, RESERVED) is None for n in ("ann", "Jürgen", "иван", "warehouse")]
[True, True, True, True]
>>> [name_refusal(n, RESERVED) is None for n in ("Operator", "оperator", "0perator", "HOUSE_1")]
[False, False, False, False]
>>> skeleton("Ｏｐｅｒａｔｏｒ")
'operator'
>>> {name_key(n) for n in ("pia", "PIA", "ｐｉａ", "pi\u0301a", "𝐩𝐢𝐚", "\u0440ia")}
{'pia'}
>>> name_key("ann2") == name_key("ann6")
False
"""

from __future__ import annotations

import unicodedata

from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

__all__ = ["name_key", "name_refusal", "skeleton"]

_DIGITS = {"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
           "$": "s", "@": "a", "!": "i", "|": "l"}
"""Digits and signs read as the letters they imitate."""


def _latin(char: str, signs: bool) -> str:
    if char.isascii():
        return _DIGITS.get(char, char) if signs else char
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"]) or []
    for item in found:
        for glyph in item["homoglyphs"]:
            text = str(glyph["c"])
            if text.isascii() and text.isalpha():
                return text.casefold()
    base = unicodedata.normalize("NFKD", char)
    return "".join(c for c in base if not unicodedata.combining(c)) or char


def skeleton(name: str, signs: bool = True) -> str:
    """``name`` as it reads: compatibility forms folded, case folded, look-alikes read as
    Latin letters (digits and signs too, unless ``signs`` is false: then they are dropped),
    accents and everything but letters dropped."""
    text = unicodedata.normalize("NFKC", name).casefold()
    read = "".join(_latin(ch, signs) for ch in text).casefold()
    return "".join(c for c in read if c.isalpha())


def name_key(name: str) -> str:
    """What two players' names are compared by: NFKC, case folded, every look-alike read
    as the Latin letter it imitates, accents dropped; digits and signs kept as they are."""
    text = unicodedata.normalize("NFKC", name).casefold()
    read = unicodedata.normalize("NFKD", "".join(_latin(ch, False) for ch in text))
    return unicodedata.normalize("NFKC", "".join(
        c for c in read if not unicodedata.combining(c))).casefold()


def name_refusal(name: str, reserved: tuple[str, ...]) -> str | None:
    """Why ``name`` may not be a player's (``None``: it may)."""
    reads = {skeleton(name), skeleton(name, signs=False)}
    for word in reserved:
        if skeleton(word) in reads:
            return f"the name {name!r} reads as {word!r}, a name players may not take"
    if confusables.is_dangerous(name, preferred_aliases=["latin"]):
        return (f"the name {name!r} mixes scripts with look-alike letters; write it in one "
                "script")
    return None
