"""The documented pre-commit hooks, run by the real pre-commit in a temporary repository: the
`repo: local` snippet of docs/integrations.md and this repository's .pre-commit-hooks.yaml.

Both must fail on a broken wiki in the default layout, where the wiki is its own repository and
left out of the project's, so no file of the project's commit matches it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git

pytest.importorskip("pre_commit")

ROOT = Path(__file__).resolve().parent.parent


def documented_snippet() -> str:
    """The `repo: local` block docs/integrations.md shows, exactly."""
    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    match = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", text, re.S)
    assert match, "docs/integrations.md shows no .pre-commit-config.yaml snippet"
    return match.group(1)


@pytest.fixture
def project(tmp_path: Path, cli) -> Path:
    """A project with its wiki in the default layout: a repository of its own, ignored by the
    project's repository."""
    folder = tmp_path / "project"
    folder.mkdir()
    git("init", "-q", cwd=folder)
    (folder / ".gitignore").write_text(".clarvis/\n")
    (folder / "app.py").write_text("print('hi')\n")
    assert cli("-C", str(folder), "init").code == 0
    return folder


def pre_commit(project: Path, isolated_env: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin",
        "PRE_COMMIT_HOME": str(isolated_env / "pre-commit-cache"),
    }
    git("add", "-A", cwd=project)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def break_a_link(project: Path) -> None:
    profile = project / ".clarvis" / "memory" / "PROFILE.md"
    profile.write_text(profile.read_text() + "\nSee [the deploy notes](deploy/gone/MEMORY.md).\n")


def test_the_documented_local_hook_fails_on_a_broken_wiki(
    project: Path, isolated_env: Path
) -> None:
    (project / ".pre-commit-config.yaml").write_text(documented_snippet())
    clean = pre_commit(project, isolated_env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "wikimem lint" in clean.stdout and "Passed" in clean.stdout

    break_a_link(project)
    broken = pre_commit(project, isolated_env)

    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Failed" in broken.stdout and "Skipped" not in broken.stdout
    assert ".clarvis/memory/PROFILE.md" in broken.stdout and "gone/MEMORY.md" in broken.stdout


def test_the_published_hook_runs_from_a_clone(
    project: Path, isolated_env: Path, tmp_path: Path
) -> None:
    # A repository publishing this project's .pre-commit-hooks.yaml, used by path: no network.
    # The hook is declared `language: python`, for which pre-commit would pip-install wikimem
    # and its dependencies from the package index into a fresh environment: slow, and not
    # deterministic offline. The config overrides only `language` (pre-commit allows it), so
    # what runs is the manifest's id, entry, always_run and pass_filenames against the
    # wikimem on PATH.
    hooks_repo = tmp_path / "hooks-repo"
    hooks_repo.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", hooks_repo)
    git("init", "-q", cwd=hooks_repo)
    git("add", "-A", cwd=hooks_repo)
    git("commit", "-q", "-m", "hooks", cwd=hooks_repo)
    rev = git("rev-parse", "HEAD", cwd=hooks_repo).strip()
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks_repo}\n    rev: {rev}\n"
        "    hooks:\n      - id: wikimem-lint\n        language: system\n"
    )
    break_a_link(project)

    broken = pre_commit(project, isolated_env)

    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "wikimem lint" in broken.stdout and "Failed" in broken.stdout
    assert "gone/MEMORY.md" in broken.stdout
