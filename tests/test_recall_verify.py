"""`wikimem verify`: what memory cites checked against the workspace, with no false alarms on
things that do not clearly name a file of the repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, git, run_wikimem
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


RUNNERS_STALE = """The report tests: `pytest tests/test_reports.py`.
```sh
TZ=UTC python -m pytest tests/test_app.py::test_gone -x
uv run --with pytest-xdist pytest -n 2 tests/unit/test_old.py
env CI=1 poetry run pytest tests/test_app.py::TestApp::test_missing
npx jest web/src/gone.test.ts
pnpm exec vitest run web/src/old.spec.ts
cd web && pnpm lint-all && npm test
go test ./pkg/gone/...
go test -run TestVanished ./pkg/...
cargo test --test old_integration
make -C sub deploy
```
"""
RUNNERS_FINE = """Run `pytest tests/test_app.py` or `TZ=UTC pytest tests/test_app.py::test_ok`.
```sh
CI=1 DEBUG= python3 -m pytest -k "slow and not db" tests/test_app.py::TestApp::test_real[x-1]
uv run pytest -n 0 tests/unit && poetry run pytest tests/test_app.py
npx jest web/src/app.test.ts && npx vitest run web/src/app.test.ts
cd web && pnpm build && pnpm tsc && yarn build && yarn install && yarn add -D left-pad
go test ./pkg/... && go test -run TestReal ./pkg/... && go test -run '^TestReal$' ./...
cargo test --test integration && cargo build --bin tool -p demo && cargo test some_filter
make -j 4 build && make -C sub all && sudo make build
pytest -p no:cacheprovider --maxfail 1 tests/
```
"""


def make_runner_repo(root: Path) -> None:
    files = {
        "tests/test_app.py": (
            "def test_ok():\n    pass\n\n\nclass TestApp:\n    def test_real(self):\n        pass\n"
        ),
        "tests/unit/test_new.py": "def test_new():\n    pass\n",
        "web/package.json": json.dumps(
            {"scripts": {"build": "vite build"}, "devDependencies": {"vite": "5"}}
        ),
        "web/src/app.test.ts": "test('x', () => {})\n",
        "pkg/real/real_test.go": "package real\n\nfunc TestReal(t *testing.T) {}\n",
        "Cargo.toml": '[package]\nname = "demo"\n',
        "tests/integration.rs": "#[test]\nfn works() {}\n",
        "src/bin/tool.rs": "fn main() {}\n",
        "Makefile": "build:\n\ttrue\n",
        "sub/Makefile": "all:\n\ttrue\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_verify_knows_the_common_test_and_build_runners(workspace: Path, cli) -> None:
    make_runner_repo(workspace)
    places, settings = setup(workspace)
    learn(
        places,
        settings,
        "run-1",
        ("testing/runners", "Stale runs", RUNNERS_STALE),
        ("testing/runners", "Current runs", RUNNERS_FINE),
    )
    found = cli("verify")
    assert found.code == 1, found.err
    lines = found.out.splitlines()
    assert all(line.startswith("testing/runners#stale-runs: ") for line in lines), lines
    assert [line.split(": ", 1)[1] for line in lines] == [
        "`pytest tests/test_reports.py`: tests/test_reports.py does not exist",
        "`pytest tests/test_app.py::test_gone`: tests/test_app.py defines no 'test_gone'",
        "`pytest tests/unit/test_old.py`: tests/unit/test_old.py does not exist",
        "`pytest tests/test_app.py::TestApp::test_missing`: tests/test_app.py defines no "
        "'test_missing'",
        "`jest web/src/gone.test.ts`: web/src/gone.test.ts does not exist",
        "`vitest web/src/old.spec.ts`: web/src/old.spec.ts does not exist",
        "`pnpm lint-all`: web/package.json has no script 'lint-all'",
        "`npm test`: web/package.json has no script 'test'",
        "`go test ./pkg/gone/...`: pkg/gone does not exist",
        "`go test -run TestVanished`: no test function TestVanished in the packages named",
        "`cargo test --test old_integration`: no test 'old_integration' in the workspace",
        "`make deploy`: Makefile has no target 'deploy'",
    ]


def test_a_cited_test_file_or_test_id_that_is_gone_fails(workspace: Path) -> None:
    make_runner_repo(workspace)
    places, settings = setup(workspace)
    body = "Covered by `tests/test_reports.py` and `tests/test_app.py::test_ok`."
    learn(places, settings, "run-1", ("testing/reports", "Report tests", body))
    done = run_wikimem("verify", cwd=workspace)
    assert done.returncode == 1
    assert done.stdout.decode().splitlines() == [
        "testing/reports#report-tests: `tests/test_reports.py` does not exist"
    ]
    (workspace / "tests/test_reports.py").write_text("def test_r():\n    pass\n")
    (workspace / "tests/test_app.py").write_text("def test_renamed():\n    pass\n")
    done = run_wikimem("verify", cwd=workspace)
    assert done.stdout.decode().splitlines() == [
        "testing/reports#report-tests: `tests/test_app.py::test_ok`: tests/test_app.py has no "
        "'test_ok'"
    ]


def test_verify_since_lists_the_entries_a_change_touched(workspace: Path) -> None:
    make_runner_repo(workspace)
    git("init", "-q", "-b", "main", cwd=workspace)
    git("add", "-A", cwd=workspace)
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "base", cwd=workspace)
    places, settings = setup(workspace)
    learn(
        places,
        settings,
        "run-1",
        ("testing/pytest", "App tests", "Run `pytest tests/test_app.py::test_ok` first."),
        ("build/web", "Web build", "```sh\ncd web && pnpm build\n```"),
        ("build/make", "Make", "See [the makefile](../../../../sub/Makefile) and `make build`."),
    )
    git("switch", "-q", "-c", "feature", cwd=workspace)
    with open(workspace / "tests/test_app.py", "a") as handle:
        handle.write("\n\ndef test_more():\n    pass\n")
    (workspace / "web/package.json").write_text(json.dumps({"scripts": {"build": "vite"}}))
    git("add", "tests", "web", cwd=workspace)
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "change", cwd=workspace)
    done = run_wikimem("verify", "--since", "main", cwd=workspace)
    assert done.returncode == 3, done.stderr.decode()
    assert done.stdout.decode().splitlines() == [
        "build/web#web-build: cites `package.json`, changed since main",
        "testing/pytest#app-tests: cites `tests/test_app.py`, changed since main",
    ]
    data = json.loads(run_wikimem("verify", "--since", "main", "--json", cwd=workspace).stdout)
    assert {d["ref"] for d in data} == {"build/web#web-build", "testing/pytest#app-tests"}
    assert all(d["touched"] for d in data)
    assert run_wikimem("verify", "--since", "HEAD", cwd=workspace).returncode == 0
    (workspace / "tests/test_app.py").unlink()
    broken = run_wikimem("verify", "--since", "main", cwd=workspace)
    assert broken.returncode == 1
    assert b"does not exist" in broken.stdout
    bad = run_wikimem("verify", "--since", "no-such-base", cwd=workspace)
    assert bad.returncode == 1 and bad.stdout == b""
    assert bad.stderr.decode().count("\n") == 1 and "git diff failed" in bad.stderr.decode()


def action_step(name: str) -> str:
    import yaml

    action = yaml.safe_load((ROOT / "action.yml").read_text())
    return next(s["run"] for s in action["runs"]["steps"] if s.get("name") == name)


def test_the_github_action_gates_a_pull_request_on_verify_since(
    workspace: Path, tmp_path: Path
) -> None:
    make_runner_repo(workspace)
    git("init", "-q", "-b", "main", cwd=workspace)
    git("add", "-A", cwd=workspace)
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "base", cwd=workspace)
    places, settings = setup(workspace)
    learn(places, settings, "run-1", ("testing/pytest", "App", "Run `pytest tests/test_app.py`."))
    git("switch", "-q", "-c", "pr", cwd=workspace)
    script = action_step("Check memory against the change")
    summary = tmp_path / "summary.md"

    def step(fail_on_touched: str) -> subprocess.CompletedProcess:
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "WIKIMEM_WORKSPACE": str(workspace),
            "BASE": "main",
            "FAIL_ON_TOUCHED": fail_on_touched,
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(tmp_path),
        }
        return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True)

    assert step("false").returncode == 0
    (workspace / "tests/test_app.py").write_text("def test_ok():\n    assert True\n")
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qam", "edit", cwd=workspace)
    warned = step("false")
    assert warned.returncode == 0
    assert "::warning title=wikimem verify::testing/pytest#app: cites `tests/test_app.py`" in (
        warned.stdout
    )
    assert step("true").returncode == 3
    git("rm", "-q", "tests/test_app.py", cwd=workspace)
    git("-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "rm", cwd=workspace)
    failed = step("false")
    assert failed.returncode == 1
    assert "::error title=wikimem verify::testing/pytest#app: `pytest tests/test_app.py`" in (
        failed.stdout
    )
    assert "Memory cites what this change removed or broke:" in summary.read_text()
