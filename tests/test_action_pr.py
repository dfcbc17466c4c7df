"""The GitHub Action's pull-request mode, run step by step as the runner runs it: the steps'
own bash from action.yml, a real bare remote, and a `gh` on PATH that records what it was asked
(the one part that would talk to GitHub)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT, example_run, git, run_wikimem


def step(name: str) -> str:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    return next(s["run"] for s in action["runs"]["steps"] if s.get("name") == name)


def test_a_memory_change_opens_a_pull_request_and_a_later_one_updates_it(
    workspace: Path, tmp_path: Path
) -> None:
    assert run_wikimem("init", cwd=workspace).returncode == 0
    wiki = workspace / ".clarvis/memory"
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", "-b", "main", str(remote), cwd=tmp_path)
    git("remote", "add", "origin", str(remote), cwd=wiki)
    git("push", "-q", "origin", "HEAD:refs/heads/main", cwd=wiki)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "gh-calls.jsonl"
    gh = bin_dir / "gh"  # `gh pr view` fails until a pull request was created
    gh.write_text(
        f"#!{sys.executable}\n"
        "import json, sys, pathlib\n"
        f"log = pathlib.Path({str(calls)!r})\n"
        "seen = log.read_text() if log.exists() else ''\n"
        "args = sys.argv[1:]\n"
        "if '--body-file' in args:\n"
        "    body = pathlib.Path(args[args.index('--body-file') + 1]).read_text()\n"
        "else:\n"
        "    body = ''\n"
        "with log.open('a') as f:\n"
        "    f.write(json.dumps({'args': args, 'body': body}) + '\\n')\n"
        "if args[:2] == ['pr', 'view'] and '\"create\"' not in seen:\n"
        "    sys.exit(1)\n"
    )
    gh.chmod(0o755)
    env = {
        **os.environ,
        "PATH": os.pathsep.join(
            (str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"])
        ),
        "WIKIMEM_WORKSPACE": str(workspace),
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_RUN_ID": "4242",
        "BRANCH": "wikimem/memory",
        "GH_TOKEN": "not-a-real-token",
    }

    def run_step(name: str) -> subprocess.CompletedProcess:
        # as GitHub runs a step of `shell: bash`
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step(name)],
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        return done

    def learn(name: str, run_id: str) -> None:
        run = tmp_path / f"{run_id}.json"
        run.write_text(json.dumps(dict(example_run(name), run_id=run_id)))
        assert run_wikimem("enqueue", str(run), cwd=workspace).returncode == 0
        assert run_wikimem("index", cwd=workspace).returncode == 0

    run_step("Note where the memory stands")
    nothing = run_step("Open a pull request with the memory change")
    assert "no memory change" in nothing.stdout and not calls.exists()

    learn("01", "pr-run-1")
    first = run_step("Open a pull request with the memory change")
    assert "opened a memory pull request" in first.stdout
    made = [json.loads(line) for line in calls.read_text().splitlines()]
    create = next(c for c in made if c["args"][:2] == ["pr", "create"])
    assert create["args"][create["args"].index("--head") + 1] == "wikimem/memory"
    assert create["args"][create["args"].index("--base") + 1] == "main"
    assert "pr-run-1" in create["body"] and "```diff" in create["body"] and "+## " in create["body"]
    pushed = git("log", "--format=%s", "wikimem/memory", cwd=remote).splitlines()
    assert len(pushed) == 2  # the wiki's start and this run's change
    assert git("rev-parse", "main", cwd=remote) != git("rev-parse", "wikimem/memory", cwd=remote)

    run_step("Note where the memory stands")
    learn("03", "pr-run-2")
    second = run_step("Open a pull request with the memory change")
    assert "updated the memory pull request" in second.stdout
    edit = [json.loads(line) for line in calls.read_text().splitlines()][-1]
    assert edit["args"][:3] == ["pr", "edit", "wikimem/memory"] and "pr-run-2" in edit["body"]
    assert "pr-run-1" in edit["body"]  # the body tells the whole pull request, not the last run
    both = git("log", "--format=%B", "wikimem/memory", cwd=remote)
    assert "pr-run-1" in both and "pr-run-2" in both  # the open pull request kept the first

    # a change larger than the body holds: the diff is cut, and the step still succeeds
    run_step("Note where the memory stands")
    big = wiki / "build" / "big.md"
    big.write_text("".join(f"line {n} of a long page a person saved\n" for n in range(4000)))
    git("add", "-A", cwd=wiki)
    git("-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qm", "big", cwd=wiki)
    third = run_step("Open a pull request with the memory change")
    assert "updated the memory pull request" in third.stdout
    body = [json.loads(line) for line in calls.read_text().splitlines()][-1]["body"]
    assert len(body) < 70_000 and body.rstrip().endswith("</details>")
