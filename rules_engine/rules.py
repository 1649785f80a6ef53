"""Rule options and the three named profiles (RULES.md §2)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from rules_engine.errors import InvalidNotationError

__all__ = ["PROFILES", "Rules", "ThrowIn"]

ThrowIn = Literal["neighbours", "all"]


@dataclass(frozen=True, slots=True)
class Rules:
    """An immutable rule configuration; every game is made from one."""

    throw_in: ThrowIn = "neighbours"
    first_round_limit: int = 6
    transfer: bool = False

    def __post_init__(self) -> None:
        if self.throw_in not in ("neighbours", "all"):
            raise InvalidNotationError(
                f"throw_in must be 'neighbours' or 'all', not {self.throw_in!r}"
            )
        if self.first_round_limit not in (5, 6) or isinstance(self.first_round_limit, bool):
            raise InvalidNotationError(
                f"first_round_limit must be 5 or 6, not {self.first_round_limit!r}"
            )
        if not isinstance(self.transfer, bool):
            raise InvalidNotationError(f"transfer must be true or false, not {self.transfer!r}")

    @property
    def profile(self) -> str | None:
        """The profile name these options match exactly, if any."""
        for name, rules in PROFILES.items():
            if rules == self:
                return name
        return None

    @property
    def name(self) -> str:
        """The profile name, or ``custom (…)`` listing every option."""
        return self.profile or (
            f"custom (throw_in={self.throw_in}, first_round_limit={self.first_round_limit}, "
            f"transfer={'on' if self.transfer else 'off'})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "throw_in": self.throw_in,
            "first_round_limit": self.first_round_limit,
            "transfer": self.transfer,
        }

    @classmethod
    def from_spec(cls, spec: object) -> Rules:
        """Rules from a profile name, or a dict with an optional ``profile`` and overrides.

        Keys given override the profile's; with no profile, ``podkidnoy`` defaults apply.
        """
        if isinstance(spec, Rules):
            return spec
        if isinstance(spec, str):
            try:
                return PROFILES[spec.strip().lower()]
            except KeyError:
                raise InvalidNotationError(
                    f"unknown rules profile {spec!r}: choose podkidnoy, perevodnoy or classic"
                ) from None
        if isinstance(spec, dict):
            unknown = set(spec) - {"profile", "throw_in", "first_round_limit", "transfer"}
            if unknown:
                raise InvalidNotationError(f"unknown rule option(s) {sorted(unknown)!r}")
            base = cls.from_spec(spec.get("profile", "podkidnoy"))
            overrides = {k: v for k, v in spec.items() if k != "profile"}
            return replace(base, **overrides)
        raise InvalidNotationError(f"rules must be a profile name or an object, not {spec!r}")


PROFILES: dict[str, Rules] = {
    "podkidnoy": Rules(throw_in="neighbours", first_round_limit=6, transfer=False),
    "perevodnoy": Rules(throw_in="all", first_round_limit=6, transfer=True),
    "classic": Rules(throw_in="all", first_round_limit=5, transfer=False),
}
