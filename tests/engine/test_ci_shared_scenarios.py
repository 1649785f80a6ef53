"""``.ci/run``'s shared-scenario step (``.ci/shared-scenarios``): a fresh clone without
``../shared`` skips it outside CI, saying why; under CI it fails; with ``../shared`` the
team's checker runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STEP = ROOT / ".ci" / "shared-scenarios"


def _clone(tmp_path: Path) -> Path:
    """A checkout with the step's script, in a directory with no ``shared`` beside it."""
    repo = tmp_path / "durak-bot"
    (repo / ".ci").mkdir(parents=True)
    (repo / "tests" / "scenarios").mkdir(parents=True)
    shutil.copy2(STEP, repo / ".ci" / STEP.name)
    return repo


def _step(repo: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHON"] = sys.executable
    return subprocess.run(
        ["bash", str(repo / ".ci" / STEP.name)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_shared_outside_ci_the_step_is_skipped_saying_why(tmp_path: Path) -> None:
    repo = _clone(tmp_path)
    for ci in (None, "", "false", "1"):
        done = _step(repo, ci)
        assert done.returncode == 0, done.stderr
        assert "skipped" in done.stdout and "../shared" in done.stdout


def test_without_shared_under_ci_the_step_fails(tmp_path: Path) -> None:
    done = _step(_clone(tmp_path), "true")
    assert done.returncode != 0
    assert "../shared/tools/check_scenarios.py not found" in done.stderr


def test_with_shared_the_checker_runs(tmp_path: Path) -> None:
    repo = _clone(tmp_path)
    tools = tmp_path / "shared" / "tools"
    tools.mkdir(parents=True)
    (tools / "check_scenarios.py").write_text(
        "import sys; print('checked', *sys.argv[1:])\n", encoding="utf-8"
    )
    for ci in (None, "true"):
        done = _step(repo, ci)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "checked ../shared/scenarios tests/scenarios"


def test_ci_run_runs_the_step_with_the_callers_ci() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'called_in_ci="${CI:-}"' in script.split('export CI="${CI:-true}"')[0]
    assert 'CI="$called_in_ci" .ci/shared-scenarios' in script
    assert "check_scenarios.py" not in script  # only through the step
