from .fakediscord.pytest_plugin import fake_discord, pytest_configure, pytest_runtest_makereport  # noqa: F401
