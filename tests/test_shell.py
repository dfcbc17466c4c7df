"""Reading shell command lines: the tool, inspection-only lines, a command run changed."""

from __future__ import annotations

import pytest

from wikimem.indexing.shell import command_tool, is_changed_command, is_inspection


@pytest.mark.parametrize(
    ("command", "tool"),
    [
        ("bun install --frozen-lockfile", "bun"),
        ("FOO=1 CI=true pytest -q", "pytest"),
        ("sudo -E apt-get install -y libpq-dev", "apt-get"),
        ("env NODE_ENV=test npx vitest run", "vitest"),
        ("uvx ruff check .", "ruff"),
        ("python -m pytest tests/", "pytest"),
        ("python3.12 -m pip install -e .", "pip"),
        ("uv run alembic upgrade head", "alembic"),
        ("poetry run mypy src", "mypy"),
        ("./scripts/e2e.sh --project chromium", "e2e"),
        ("bash scripts/Deploy_Preview.sh", "deploy-preview"),
        ("bash -c 'make test'", "make"),
        ("cd web && pnpm install", "pnpm"),
        ("/usr/local/bin/terraform apply", "terraform"),
        ("python manage.py migrate", "manage"),
        ("npm test 2>&1 | tail -20", "npm"),
        ("", ""),
        ("FOO=1", ""),
    ],
)
def test_command_tool(command: str, tool: str):
    assert command_tool(command) == tool


@pytest.mark.parametrize(
    ("command", "inspection"),
    [
        ("git diff --stat", True),
        ("env | sort | grep -i pg", True),
        ("cd api && cat pyproject.toml", True),
        ("gh run view 11842 --log", True),
        ("gcloud run services logs read api --limit 5", True),
        ("kubectl describe pod api-0", True),
        ("ls > files.txt", False),
        ("echo 'NODE_OPTIONS=--max-old-space-size=4096' >> .env", False),
        ("echo $X | docker login ghcr.io --password-stdin", False),
        ("git commit -am fix", False),
        ("bun install", False),
        ("sed -i s/3000/8080/ fly.toml", False),
        ("sed -n 30,80p src/billing/webhooks.py", True),
        ("sed --in-place -e s/a/b/ x.txt", False),
        ("lsof -i :5432", True),
    ],
)
def test_is_inspection(command: str, inspection: bool):
    assert is_inspection(command) is inspection


@pytest.mark.parametrize(
    ("failed", "passed", "changed"),
    [
        ("pytest tests/", "pytest -p no:randomly tests/", True),
        ("pytest -n auto tests/integration -q", "pytest -n 0 tests/integration -q", True),
        ("pytest tests/a.py", "TZ=UTC pytest tests/a.py", True),
        ("bun install --frozen-lockfile", "bun install", True),
        ("docker compose up", "docker compose up --build", True),
        ("pytest tests/a", "pytest tests/b", False),
        ("pytest -x tests/a", "pytest -x tests/b", False),
        ("pytest", "pytest tests/unit", False),
        ("make test", "make test-unit", False),
        ("npm test", "yarn test", False),
        ("pytest tests/", "pytest tests/", False),
        ("pytest -q tests/ 2>&1 | tail -5", "pytest -q -p no:cacheprovider tests/", True),
    ],
)
def test_changed_command_keeps_tool_and_targets(failed: str, passed: str, changed: bool):
    assert is_changed_command(failed, passed) is changed
