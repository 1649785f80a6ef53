"""The web server's settings read from the environment: whole numbers and on/off flags, each
refused with a :class:`ValueError` that names the variable and says what it must be.  The
name comes first, as the settings scan of the docs' tests expects of a reader."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["env_flag", "env_whole"]

_ON = ("1", "true", "yes")
_OFF = ("", "0", "false", "no")


def env_whole(
    name: str, env: Mapping[str, str], default: int, low: int = 1, high: int | None = None
) -> int:
    """The whole number ``env[name]`` (unset or blank: ``default``), from ``low`` up to
    ``high`` (no upper bound when ``None``)."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdecimal() or int(raw) < low or (high is not None and int(raw) > high):
        span = f"≥ {low}" if high is None else f"from {low} to {high}"
        raise ValueError(f"{name}={raw!r} must be a whole number {span}")
    return int(raw)


def env_flag(name: str, env: Mapping[str, str]) -> bool:
    """Whether ``env[name]`` is on (``1``, ``true``, ``yes``; unset, ``0``, ``false``, ``no``:
    off; case and surrounding blanks do not matter)."""
    flag = env.get(name, "").strip().lower()
    if flag not in _ON + _OFF:
        raise ValueError(f"{name}={flag!r} must be 1 or 0")
    return flag in _ON
