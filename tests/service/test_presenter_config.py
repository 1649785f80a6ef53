"""Presenters never break a game; settings; the command line."""

from __future__ import annotations

import logging

import pytest

import apps.cli as cli
from apps.config import Settings, token_problem
from bot.errors import ConfigError
from bot.presenter import NullPresenter, Presenter
from bot.realm import EVERY_REALM

from .conftest import ALICE, BOB, CH, Recorder, open_table, settle


class Exploding(NullPresenter):
    realms = EVERY_REALM

    async def table_changed(self, view):
        raise RuntimeError("discord is down")

    async def hand_changed(self, channel_id, user_id, view):
        raise RuntimeError("discord is down")


async def test_a_failing_presenter_is_logged_not_fatal(make_service, caplog):
    recorder = Recorder()
    svc = await make_service(presenters=[Exploding(), recorder])
    assert isinstance(recorder, Presenter) and isinstance(Exploding(), Presenter)
    table = await open_table(svc, ALICE, BOB)
    user = ALICE if table.to_act == 0 else BOB
    hand = await svc.hand(CH, user)
    with caplog.at_level(logging.ERROR):
        view = await svc.act(CH, user, hand.legal[0].text, 0)
        await settle(svc)
    assert view.version == 1
    assert any("presenter" in r.message for r in caplog.records)
    assert recorder.of("table")[-1].version == 1  # the other presenter still got it


async def test_hands_go_to_their_owners_only(make_service):
    recorder = Recorder()
    svc = await make_service(presenters=[recorder])
    await open_table(svc, ALICE, BOB)
    await settle(svc)
    for channel, user, view in recorder.of("hand"):
        assert channel == CH and view.user_id == user


def test_settings_defaults_and_dotenv(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        "DATABASE_PATH=/tmp/x.sqlite3\nTURN_TIMEOUT=90\nAI_DELAY=0.5\n"
        "LOG_LEVEL=debug\nDEV_GUILD_ID=123\n"
    )
    s = Settings.from_env({}, dotenv_path=env_file)
    assert (s.database_path, s.turn_timeout, s.ai_delay, s.log_level, s.dev_guild_id) == (
        "/tmp/x.sqlite3",
        90,
        0.5,
        "DEBUG",
        123,
    )
    # the process environment wins over .env
    s = Settings.from_env({"TURN_TIMEOUT": "30"}, dotenv_path=env_file)
    assert s.turn_timeout == 30
    s = Settings.from_env({}, dotenv_path=None)
    assert (s.database_path, s.turn_timeout, s.ai_delay, s.discord_token, s.shard_count) == (
        "durak.sqlite3",
        60,
        1.0,
        None,
        None,
    )
    token = "x" * 30
    assert token not in repr(Settings.from_env({"DISCORD_TOKEN": token}, dotenv_path=None))


def test_settings_report_every_problem(tmp_path):
    with pytest.raises(ConfigError) as info:
        Settings.from_env(
            {
                "TURN_TIMEOUT": "5",
                "AI_DELAY": "soon",
                "LOG_LEVEL": "LOUD",
                "DEV_GUILD_ID": "abc",
                "SHARD_COUNT": "0",
                "DISCORD_TOKEN": "short",
            },
            dotenv_path=None,
        )
    problems = info.value.problems
    assert len(problems) == 5
    text = str(info.value)
    for name in ("TURN_TIMEOUT", "AI_DELAY", "LOG_LEVEL", "DEV_GUILD_ID", "SHARD_COUNT"):
        assert name in text
    assert "DISCORD_TOKEN" not in text  # judged only when connecting (token_problem)
    assert len(text.splitlines()) == 6  # a header and one line per problem


def test_database_timeout_setting(tmp_path):
    """``DATABASE_TIMEOUT``: seconds a request waits for the database (default 2), checked."""
    assert Settings.from_env({}, dotenv_path=None).database_timeout == 2.0
    env_file = tmp_path / ".env"
    env_file.write_text("DATABASE_TIMEOUT=3.5\n")
    assert Settings.from_env({}, dotenv_path=env_file).database_timeout == 3.5
    for bad, why in (("0", "out of range"), ("61", "out of range"), ("nan", "out of range")):
        with pytest.raises(ConfigError, match=f"DATABASE_TIMEOUT={bad} is {why}"):
            Settings.from_env({"DATABASE_TIMEOUT": bad}, dotenv_path=None)
    with pytest.raises(ConfigError, match="DATABASE_TIMEOUT='soon' is not a number of seconds"):
        Settings.from_env({"DATABASE_TIMEOUT": "soon"}, dotenv_path=None)


@pytest.mark.parametrize(
    "token, expected",
    [
        (None, "is not set"),
        ("", "is not set"),
        (
            "Bot AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCCCCCCCCCCCCCCC",
            "remove the 'Bot ' prefix",
        ),
        ("short", "does not look like a bot token"),
        ("AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBB.CCCC CCCCCCCCCCCCCCCCCCCCCCC", "does not look like"),
        ("AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCCCCCCCCCCCCCCC", None),
    ],
)
def test_token_is_judged_in_one_place(token, expected):
    problem = token_problem(token)
    if expected is None:
        assert problem is None
    else:
        assert problem is not None and expected in problem and "\n" not in problem
        assert problem.startswith("DISCORD_TOKEN")


def test_main_without_discord_app_says_so(monkeypatch, capsys):
    real = cli.importlib.import_module

    def fake(name):
        if name == "apps.discord_bot":
            raise ModuleNotFoundError("No module named 'apps.discord_bot'", name=name)
        return real(name)

    monkeypatch.setattr(cli.importlib, "import_module", fake)
    monkeypatch.chdir("/")
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert "durak-bot play" in err and len(err.strip().splitlines()) == 1


def test_main_calls_discord_app_run(monkeypatch):
    calls = []

    class FakeApp:
        @staticmethod
        def run(settings):
            calls.append(settings)
            return 0

    monkeypatch.setattr(cli.importlib, "import_module", lambda name: FakeApp)
    monkeypatch.chdir("/")
    assert cli.main([]) == 0
    assert isinstance(calls[0], Settings)


def test_main_reports_bad_config(monkeypatch, capsys):
    monkeypatch.setenv("TURN_TIMEOUT", "nope")
    monkeypatch.chdir("/")
    assert cli.main(["play"]) == 2
    assert "TURN_TIMEOUT" in capsys.readouterr().err
