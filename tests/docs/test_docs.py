"""The docs say what the code does: every setting the code reads is in docs/CONFIG.md and
.env.example (and they name no other), every relative link of README.md and docs/*.md leads to
a file and a heading that exist, and the README stays a short page with its two commands."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from bot.storage.migrations import POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS
from tests.docs.markdown import anchors, links, slug
from tests.docs.settings_scan import scan_sources, scan_tree

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "docs" / "CONFIG.md"
ENV_EXAMPLE = ROOT / ".env.example"
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
#: What a setting's name looks like in prose.
SETTING_WORD = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")

#: The README's two commands, character for character (CI and newcomers run them as they are).
INSTALL_AND_START = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && "
    "{ [ -f .env ] || cp .env.example .env; } && .venv/bin/durak-bot"
)
INSTALL_AND_TEST = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest -q"
)


def _config_rows() -> list[str]:
    """The first column of CONFIG.md's table: one setting a row."""
    rows = re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", CONFIG.read_text(encoding="utf-8"), re.M)
    assert rows, "docs/CONFIG.md has no table of settings"
    return rows


def _env_example_names() -> list[str]:
    """The settings ``.env.example`` assigns (``NAME=value`` lines)."""
    return re.findall(r"^([A-Z][A-Z0-9_]*)=", ENV_EXAMPLE.read_text(encoding="utf-8"), re.M)


def _code_settings() -> dict[str, list[str]]:
    scan = scan_tree(ROOT)
    assert scan.unresolved == [], (
        "settings read with a key the docs test cannot resolve (use a string or a module-level "
        f"constant): {scan.unresolved}"
    )
    return scan.names


def test_the_scan_finds_the_settings_of_each_way_they_are_read() -> None:
    """The bot's settings (``apps/config.py``'s readers), the rooms' limits (``whole`` and
    ``env.get`` in ``web/rooms/limits.py``) and ``AI_WORKERS`` (``os.environ`` with a constant
    key, in ``bot/ai_pool``)."""
    names = _code_settings()
    assert {"DISCORD_TOKEN", "DATABASE_URL", "SHARD_IDS", "PUBLIC_URL"} <= names.keys()
    assert {"ROOMS_PER_HOUR", "ROOM_IDLE_MINUTES", "WEB_FORWARDED_FOR"} <= names.keys()
    assert any(place.startswith("bot/ai_pool/") for place in names["AI_WORKERS"])


def test_the_scan_finds_a_new_setting_however_it_is_read() -> None:
    """A setting added in any of the ways the code reads them is found; a read whose key it
    cannot tell is reported rather than missed."""
    scan = scan_sources(
        {
            "direct.py": (
                "import os\nSTEP = 'NEW_CONSTANT'\n"
                "a = os.environ.get('NEW_DIRECT')\nb = os.getenv('NEW_GETENV')\n"
                "c = os.environ['NEW_SUBSCRIPT']\nd = 'NEW_IN' in os.environ\n"
                "e = os.environ.get(STEP, '')\n"
            ),
            "readers.py": (
                "def from_env(env):\n"
                "    def raw(name):\n        return env.get(name, '').strip()\n"
                "    def number(name, low):\n        return int(raw(name) or low)\n"
                "    return number('NEW_BY_READER', 1), settings.values.get('NEW_BY_VALUES')\n"
            ),
            "loop.py": "import os\nfor key in KEYS:\n    os.environ.get(key)\n",
        }
    )
    assert set(scan.names) == {
        "NEW_CONSTANT",
        "NEW_DIRECT",
        "NEW_GETENV",
        "NEW_SUBSCRIPT",
        "NEW_IN",
        "NEW_BY_READER",
        "NEW_BY_VALUES",
    }
    assert scan.unresolved == ["loop.py:3: key"]


def test_every_setting_the_code_reads_is_in_config_md_and_env_example() -> None:
    code = _code_settings()
    rows, example = set(_config_rows()), set(_env_example_names())
    undocumented = {name: code[name] for name in sorted(code.keys() - rows)}
    assert not undocumented, f"settings read by the code but not in docs/CONFIG.md: {undocumented}"
    missing = {name: code[name] for name in sorted(code.keys() - example)}
    assert not missing, f"settings read by the code but not in .env.example: {missing}"


def test_config_md_names_only_settings_the_code_reads_once_each() -> None:
    code = _code_settings().keys()
    rows = _config_rows()
    assert sorted(rows) == sorted(set(rows)), "a setting has two rows in docs/CONFIG.md"
    assert set(rows) - code == set(), "docs/CONFIG.md has a row for a setting nothing reads"
    named = set(SETTING_WORD.findall(CONFIG.read_text(encoding="utf-8")))
    assert named - code == set(), "docs/CONFIG.md names a setting nothing reads"


def test_env_example_names_only_settings_the_code_reads_once_each() -> None:
    names = _env_example_names()
    assert sorted(names) == sorted(set(names)), ".env.example assigns a setting twice"
    assert set(names) - _code_settings().keys() == set(), ".env.example sets what nothing reads"


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Each relative link of ``page`` that leads nowhere: no such file (or directory) inside
    ``root``, or no such heading in the Markdown page it names."""
    text = page.read_text(encoding="utf-8")
    broken: list[str] = []
    for link in links(text):
        where = f"{page.relative_to(root)}:{link.line}: {link.path}#{link.anchor or ''}"
        target = (page.parent / unquote(link.path)).resolve() if link.path else page
        if not target.is_relative_to(root.resolve()) or not target.exists():
            broken.append(f"{where} (no such file)")
            continue
        if (
            link.anchor is not None
            and target.suffix == ".md"
            and unquote(link.anchor) not in anchors(target.read_text(encoding="utf-8"))
        ):
            broken.append(f"{where} (no such heading in {target.name})")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(page: Path) -> None:
    assert broken_links(page) == []


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "A.md").write_text("# Title\n\n## Fair play: votes\n\n## Fair play: votes")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/A.md#fair-play-votes) [ok](docs/A.md#fair-play-votes-1) [ok](#top)\n"
        '<a id="top"></a> <img src="docs/missing.png">\n'
        "[bad](docs/A.md#fair-play) [bad](docs/B.md) [out](../elsewhere.md) "
        "[web](https://example.org/x.md) `[code](nowhere.md)`\n"
        "```\n[fenced](nowhere.md)\n```\n"
    )
    assert broken_links(page, tmp_path) == [
        "README.md:2: docs/missing.png# (no such file)",
        "README.md:3: docs/A.md#fair-play (no such heading in A.md)",
        "README.md:3: docs/B.md# (no such file)",
        "README.md:3: ../elsewhere.md# (no such file)",
    ]


def test_headings_become_githubs_anchors() -> None:
    assert slug("Rooms: `durak-bot web`") == "rooms-durak-bot-web"
    assert slug("8. What everyone sees") == "8-what-everyone-sees"
    assert slug("Owner only: the `sync` mention command") == "owner-only-the-sync-mention-command"
    assert slug("Rooms in the browser (no Discord)") == "rooms-in-the-browser-no-discord"


def test_the_readme_is_a_short_page_with_its_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    commands = re.findall(r"^```sh\n(.*?)\n```$", text, re.M | re.S)
    assert INSTALL_AND_START in commands
    assert INSTALL_AND_TEST in commands


def test_the_docs_name_the_current_schema_version() -> None:
    """The backup's example output and the "newer release" refusal name the schema version
    this code migrates to (and the backup says "1234 games", a plural)."""
    current = SQLITE_MIGRATIONS[-1].number
    assert POSTGRES_MIGRATIONS[-1].number == current
    text = (ROOT / "docs" / "OPERATING.md").read_text(encoding="utf-8")
    backups = re.findall(r"\(schema version (\d+), (\d+) games?\)", text)
    assert backups and all(int(version) == current for version, _ in backups), backups
    newer = re.findall(r"has schema version (\d+), newer than the version (\d+) this", text)
    assert newer == [(str(current + 1), str(current))]
