"""RULES.md §2: rule options and the named profiles."""

from __future__ import annotations

import pytest

from rules_engine import PROFILES, InvalidNotationError, Rules

# The profile table of RULES.md §2, copied by hand.
TABLE = {
    "podkidnoy": ("neighbours", 6, False),
    "perevodnoy": ("all", 6, True),
    "classic": ("all", 5, False),
}


def test_profiles_match_rules_md_table() -> None:
    assert set(PROFILES) == set(TABLE)
    for name, (throw_in, limit, transfer) in TABLE.items():
        rules = Rules.from_spec(name)
        assert (rules.throw_in, rules.first_round_limit, rules.transfer) == (
            throw_in,
            limit,
            transfer,
        )
        assert rules.profile == name
        assert rules.name == name
        assert rules.to_dict() == {
            "throw_in": throw_in,
            "first_round_limit": limit,
            "transfer": transfer,
        }


def test_defaults_are_podkidnoy() -> None:
    assert Rules() == PROFILES["podkidnoy"]
    assert Rules.from_spec({}) == PROFILES["podkidnoy"]


def test_profile_name_is_case_insensitive() -> None:
    assert Rules.from_spec(" Classic ") == PROFILES["classic"]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"profile": "classic", "transfer": True}, ("all", 5, True)),
        ({"throw_in": "all", "first_round_limit": 5, "transfer": False}, ("all", 5, False)),
        ({"first_round_limit": 5}, ("neighbours", 5, False)),
        ({"throw_in": "all"}, ("all", 6, False)),
        ({"profile": "perevodnoy", "throw_in": "neighbours"}, ("neighbours", 6, True)),
        (
            {"profile": "podkidnoy", "transfer": True, "first_round_limit": 5},
            ("neighbours", 5, True),
        ),
    ],
)
def test_from_spec_overrides(spec: dict[str, object], expected: tuple[str, int, bool]) -> None:
    rules = Rules.from_spec(spec)
    assert (rules.throw_in, rules.first_round_limit, rules.transfer) == expected


def test_custom_rules_have_no_profile_and_a_descriptive_name() -> None:
    rules = Rules.from_spec({"profile": "classic", "transfer": True})
    assert rules.profile is None
    assert rules.name == "custom (throw_in=all, first_round_limit=5, transfer=on)"
    # overriding with the profile's own value is that profile
    assert Rules.from_spec({"profile": "classic", "transfer": False}).profile == "classic"


def test_from_spec_of_rules_is_identity() -> None:
    rules = PROFILES["perevodnoy"]
    assert Rules.from_spec(rules) is rules


@pytest.mark.parametrize(
    ("spec", "quoted"),
    [
        ("kyiv", "'kyiv'"),
        ({"profile": "kyiv"}, "'kyiv'"),
        ({"throw_in": "everyone"}, "'everyone'"),
        ({"first_round_limit": 4}, "4"),
        ({"first_round_limit": "5"}, "'5'"),
        ({"first_round_limit": True}, "True"),
        ({"transfer": "yes"}, "'yes'"),
        ({"transfer": 1}, "1"),
        ({"trump_exchange": True}, "trump_exchange"),
        (5, "5"),
        (None, "None"),
    ],
)
def test_bad_specs_raise(spec: object, quoted: str) -> None:
    with pytest.raises(InvalidNotationError) as info:
        Rules.from_spec(spec)
    assert quoted in str(info.value)


def test_rules_are_frozen() -> None:
    rules = PROFILES["classic"]
    with pytest.raises(AttributeError):
        rules.transfer = True  # type: ignore[misc]
