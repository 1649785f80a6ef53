"""Build or check the gettext catalogues with Babel: ``python -m present.locales [--check]``.

Without options: ``pybabel extract`` the messages from the source markers (see ``babel.cfg``
and :data:`KEYWORDS`) into a temporary template, ``pybabel update`` every
``present/locales/<lang>/LC_MESSAGES/durak.po`` from it (obsolete entries dropped, no fuzzy
matching: a new message is left empty for a translator), then ``pybabel compile`` the ``.mo``
files, which are committed so that the bot needs no Babel at run time.

``--check`` (CI) changes nothing and fails when a catalogue is out of date with the source
(``pybabel update --check``), has an untranslated or fuzzy entry (``pybabel compile
--statistics`` shows the counts), or when a committed ``.mo`` differs from what ``pybabel
compile`` makes of its ``.po``.
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from babel.messages.catalog import Message as BabelMessage
from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
LOCALES = Path(__file__).resolve().parent
DOMAIN = "durak"
LANGUAGES = ("es", "fr")
MAPPING = ROOT / "babel.cfg"
SOURCES = ("rules_engine", "bot", "present", "cogs", "web", "terminal", "apps")
#: The extraction markers: a message's key (``Message``), a key kept in a table (``N_``), a
#: command string with its context (``NC_``), and the catalogue calls of the Discord renderer.
KEYWORDS = (
    "Message",
    "N_",
    "NC_:1c,2",
    "gettext",
    "ngettext:1,2",
    "pgettext:1c,2",
    "fill",
    "nfill:1,2",
)


def pybabel(*args: str, quiet: bool = True) -> int:
    """Run one ``pybabel`` command in this process; its exit status (0: success)."""
    # Babel's command line has no type annotations: give its entry point the documented type.
    run: Callable[[list[str]], int | None] = CommandLineInterface().run
    try:
        status = run(["pybabel", *(["--quiet"] if quiet else []), *args])
    except SystemExit as exc:  # the command line reports some failures by exiting
        return int(exc.code or 0)
    return int(status or 0)


def extract(template: Path) -> int:
    """``pybabel extract`` every message of the source into ``template``."""
    keywords = [arg for keyword in KEYWORDS for arg in ("-k", keyword)]
    return pybabel(
        "extract",
        "-F",
        str(MAPPING),
        "--no-default-keywords",
        *keywords,
        "--no-location",
        "--sort-output",
        "--project",
        "durak-bot",
        "--msgid-bugs-address",
        "",
        "-o",
        str(template),
        *(str(ROOT / source) for source in SOURCES),
    )


def _update_args(template: Path) -> list[str]:
    return [
        "update",
        "-i",
        str(template),
        "-d",
        str(LOCALES),
        "-D",
        DOMAIN,
        "--no-fuzzy-matching",
        "--ignore-obsolete",
        "--ignore-pot-creation-date",
        "--no-wrap",
    ]


def entries(po: Path) -> list[BabelMessage]:
    """The entries of the ``.po`` or ``.pot`` file ``po`` (read with Babel's reader), without
    the header."""
    with po.open("rb") as f:
        return [message for message in read_po(f) if message.id]


def incomplete(po: Path) -> list[str]:
    """The entries of ``po`` that are untranslated or fuzzy."""
    bad = []
    for message in entries(po):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            bad.append(str(message.id))
    return bad


def build() -> int:
    """Extract, update and compile."""
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / f"{DOMAIN}.pot"
        if extract(template) or pybabel(*_update_args(template)):
            return 1
    status = pybabel("compile", "-d", str(LOCALES), "-D", DOMAIN, "--statistics")
    for lang in LANGUAGES:
        missing = incomplete(LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po")
        if missing:
            print(
                f"{lang}: {len(missing)} messages to translate, e.g. {missing[0]!r}",
                file=sys.stderr,
            )
    return status


def check() -> int:
    """Fail (1) unless every catalogue is up to date, complete and compiled."""
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / f"{DOMAIN}.pot"
        if extract(template):
            return 1
        if pybabel(*_update_args(template), "--check"):
            problems.append("a catalogue is out of date with the source")
        for lang in LANGUAGES:
            po = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
            mo = Path(tmp) / f"{lang}.mo"
            missing = incomplete(po)
            if missing:
                problems.append(f"{po}: {len(missing)} untranslated or fuzzy, e.g. {missing[0]!r}")
            if pybabel(
                "compile", "-i", str(po), "-o", str(mo), "-l", lang, "--statistics", quiet=False
            ):
                problems.append(f"{po} does not compile")
            elif not filecmp.cmp(mo, po.with_suffix(".mo"), shallow=False):
                problems.append(f"{po.with_suffix('.mo')} is not the compiled {po.name}")
    for problem in problems:
        print(f"catalogues: {problem}", file=sys.stderr)
    if problems:
        print("run: python -m present.locales (then translate the empty entries)", file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m present.locales", description=__doc__)
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; fail unless the catalogues are up to date",
    )
    args = parser.parse_args(argv)
    return check() if args.check else build()


if __name__ == "__main__":
    sys.exit(main())
