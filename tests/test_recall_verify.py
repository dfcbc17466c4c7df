"""`wikimem verify`: what memory cites checked against the workspace, with no false alarms on
things that do not clearly name a file of the repository."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_wikimem
from tests.recall_support import learn, setup

STALE = """Run `./scripts/old-build.sh` first, then `bash tools/check.sh`.
The handler is in `src/app.py:40` and the config in [settings](config/settings.toml).
```sh
cd web && npm run lint-all
make deploy
python scripts/gone.py --fast
```
"""
FINE = """Run `./scripts/build.sh`, `bash tools/check.sh` and `python scripts/seed.py`.
See `src/app.py:3`, `src/app.py`, `pyproject.toml` and [the app](src/app.py#L2).
```sh
cd web && npm run build && bun run test
make build
```
Not paths: `origin/main`, `application/json`, `/usr/bin/env`, `~/.clarvis/config.toml`,
`node_modules/x/index.js`, `$HOME/x.sh`, `bun install --frozen-lockfile`, `build/bun`,
`python -m pytest`, `npm test`, [site](https://example.com/a.py), [leaf](../other/MEMORY.md).
"""


def make_repo(root: Path) -> None:
    files = {
        "scripts/build.sh": "echo build\n",
        "scripts/seed.py": "print()\n",
        "tools/check.sh": "true\n",
        "src/app.py": "a = 1\nb = 2\nc = 3\n",
        "pyproject.toml": "[project]\n",
        "web/package.json": json.dumps({"scripts": {"build": "vite build", "test": "vitest"}}),
        "Makefile": "build: deps\n\techo build\n\ndeps:\n\ttrue\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_verify_flags_memory_that_no_longer_matches_the_code(workspace: Path, cli) -> None:
    make_repo(workspace)
    places, settings = setup(workspace)
    learn(
        places,
        settings,
        "run-1",
        ("build/scripts", "Stale steps", STALE),
        ("build/scripts", "Current steps", FINE),
    )
    found = cli("verify")
    assert found.code == 1
    lines = found.out.splitlines()
    assert all(line.startswith("build/scripts#stale-steps: ") for line in lines), lines
    messages = [line.split(": ", 1)[1] for line in lines]
    assert messages == [
        "`./scripts/old-build.sh` does not exist",
        "`src/app.py:40`: src/app.py has only 3 lines",
        "`config/settings.toml` does not exist",
        "`npm run lint-all`: web/package.json has no script 'lint-all'",
        "`make deploy`: Makefile has no target 'deploy'",
        "`python scripts/gone.py`: scripts/gone.py does not exist",
    ]
    data = json.loads(cli("verify", "--json").out)
    assert data[0] == {
        "ref": "build/scripts#stale-steps",
        "message": "`./scripts/old-build.sh` does not exist",
    }


def test_verify_passes_in_ci_when_everything_cited_exists(workspace: Path) -> None:
    make_repo(workspace)
    places, settings = setup(workspace)
    learn(places, settings, "run-1", ("build/scripts", "Current steps", FINE))
    done = run_wikimem("verify", cwd=workspace)
    assert done.returncode == 0, done.stdout.decode()
    assert done.stdout == b""
    (workspace / "src" / "app.py").unlink()
    gone = run_wikimem("verify", cwd=workspace)
    assert gone.returncode == 1
    assert b"build/scripts#current-steps: `src/app.py:3`: src/app.py does not exist" in gone.stdout
