"""Compile the gettext catalogues ``<lang>/LC_MESSAGES/*.po`` into ``.mo`` (stdlib only).

    python cogs/locales/compile.py          # write every .mo next to its .po
    python cogs/locales/compile.py --check  # exit 1 if a .mo is missing or out of date

Supports what the catalogues use: ``msgctxt``, ``msgid``, ``msgid_plural``, ``msgstr``,
``msgstr[n]``, multi-line strings, comments and the ``fuzzy`` flag (fuzzy entries are skipped,
as msgfmt does).  The output is deterministic (keys sorted, no hash table), so the check can
compare bytes.
"""

from __future__ import annotations

import ast
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Entry", "compile_po", "main", "parse_po", "po_files"]

HERE = Path(__file__).resolve().parent


@dataclass
class Entry:
    msgid: str = ""
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    fuzzy: bool = False
    line: int = 0

    @property
    def key(self) -> str:
        """The .mo key: ``context\\x04msgid`` (``\\x00msgid_plural`` appended for plurals)."""
        key = self.msgid if self.msgctxt is None else f"{self.msgctxt}\x04{self.msgid}"
        if self.msgid_plural is not None:
            key += "\x00" + self.msgid_plural
        return key

    @property
    def value(self) -> str:
        return "\x00".join(self.msgstr[i] for i in sorted(self.msgstr))

    @property
    def translated(self) -> bool:
        return not self.fuzzy and bool(self.msgstr) and all(self.msgstr.values())


def _unquote(text: str, where: str) -> str:
    text = text.strip()
    if not (len(text) >= 2 and text[0] == text[-1] == '"'):
        raise ValueError(f"{where}: expected a quoted string, got {text!r}")
    return str(ast.literal_eval(text))


def parse_po(text: str, name: str = "<po>") -> list[Entry]:
    """The entries of a .po file (the header is the entry with an empty msgid)."""
    entries: list[Entry] = []
    cur = Entry()
    target: tuple[str, int] | None = None  # which field continuation lines extend
    started = False

    def finish() -> None:
        nonlocal cur, started, target
        if started:
            entries.append(cur)
        cur, started, target = Entry(), False, None

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{name}:{lineno}"
        if not line:
            finish()
            continue
        if line.startswith("#"):
            if started and target is not None and cur.msgstr:
                finish()
            if line.startswith("#,") and "fuzzy" in line:
                cur.fuzzy = True
            continue
        keyword, _, rest = line.partition(" ")
        if line.startswith('"'):
            if target is None:
                raise ValueError(f"{where}: continuation line outside an entry")
            value = _unquote(line, where)
            kind, idx = target
            if kind == "msgid":
                cur.msgid += value
            elif kind == "msgctxt":
                cur.msgctxt = (cur.msgctxt or "") + value
            elif kind == "msgid_plural":
                cur.msgid_plural = (cur.msgid_plural or "") + value
            else:
                cur.msgstr[idx] += value
            continue
        if keyword in ("msgctxt", "msgid") and started and (cur.msgstr or keyword == "msgctxt"):
            finish()
        if keyword == "msgctxt":
            started, cur.line = True, lineno
            cur.msgctxt, target = _unquote(rest, where), ("msgctxt", 0)
        elif keyword == "msgid":
            if not started:
                cur.line = lineno
            started = True
            cur.msgid, target = _unquote(rest, where), ("msgid", 0)
        elif keyword == "msgid_plural":
            cur.msgid_plural, target = _unquote(rest, where), ("msgid_plural", 0)
        elif keyword == "msgstr":
            cur.msgstr[0], target = _unquote(rest, where), ("msgstr", 0)
        elif keyword.startswith("msgstr[") and keyword.endswith("]"):
            idx = int(keyword[7:-1])
            cur.msgstr[idx], target = _unquote(rest, where), ("msgstr", idx)
        else:
            raise ValueError(f"{where}: cannot read {line!r}")
    finish()
    return entries


def compile_po(text: str, name: str = "<po>") -> bytes:
    """The .mo bytes of a .po text (GNU format, little endian, no hash table)."""
    pairs: dict[bytes, bytes] = {}
    for entry in parse_po(text, name):
        if entry.msgid == "" and entry.msgctxt is None:
            pairs[b""] = entry.value.encode()  # the header, always kept
        elif entry.translated:
            pairs[entry.key.encode()] = entry.value.encode()
    keys = sorted(pairs)
    n = len(keys)
    header_size = 7 * 4
    ids_offset = header_size
    strs_offset = ids_offset + n * 8
    data_offset = strs_offset + n * 8
    ids = b""
    strs = b""
    id_table: list[int] = []
    for key in keys:
        id_table += [len(key), data_offset + len(ids)]
        ids += key + b"\0"
    strs_base = data_offset + len(ids)
    str_table: list[int] = []
    for key in keys:
        value = pairs[key]
        str_table += [len(value), strs_base + len(strs)]
        strs += value + b"\0"
    return (
        struct.pack("<7I", 0x950412DE, 0, n, ids_offset, strs_offset, 0, data_offset)
        + struct.pack(f"<{2 * n}I", *id_table)
        + struct.pack(f"<{2 * n}I", *str_table)
        + ids
        + strs
    )


def po_files(root: Path = HERE) -> list[Path]:
    return sorted(root.glob("*/LC_MESSAGES/*.po"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    stale = []
    for po in po_files():
        mo = po.with_suffix(".mo")
        data = compile_po(po.read_text(encoding="utf-8"), str(po))
        if mo.exists() and mo.read_bytes() == data:
            continue
        if check:
            stale.append(mo)
        else:
            mo.write_bytes(data)
            print(f"wrote {mo}")
    for mo in stale:
        print(f"out of date: {mo} (run python cogs/locales/compile.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
