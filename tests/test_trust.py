"""The trust model: what a workspace's config.toml can make wikimem do, and the wiki repository
another user could have prepared. Each attack is tried for real: a repository shipping a config
that starts a program, another user's writable config, a file changed after it was trusted, a
`core.fsmonitor` planted in the wiki's `.git/config`, and a umask of 0."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

from tests.conftest import git, run_wikimem, trust_config
from wikimem import config, trust

AS_ROOT = hasattr(os, "getuid") and os.getuid() == 0


def planting(marker: Path) -> str:
    """A command line that leaves `marker` behind if it ever runs."""
    return shlex.join([sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ran')"])


def write_config(workspace: Path, text: str) -> Path:
    path = workspace / ".clarvis" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def loaded(workspace: Path, capsys: pytest.CaptureFixture[str]) -> tuple[config.Settings, str]:
    config._warned.clear()
    settings = config.load(config.places(workspace, {}), {})
    return settings, capsys.readouterr().err


ENDPOINT = (
    '[model]\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "sk-theirs"\n[queue]\nbatch = 3\n'
)


def test_an_untrusted_workspace_file_keeps_its_safe_settings_only(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(workspace, ENDPOINT)
    settings, err = loaded(workspace, capsys)
    assert settings.queue.batch == 3  # harmless settings apply as ever
    assert settings.model.base_url is None and settings.model.api_key is None
    assert settings.ignored == ("model.base_url", "model.api_key")
    assert settings.values["model.base_url"].source == f"default; {path} ignored"
    assert err == (
        f"wikimem: ignored model.base_url, model.api_key from {path}: it is not trusted "
        f"(review it, then run `wikimem trust -C {workspace}`)\n"
    )
    trust_config(path)
    settings, err = loaded(workspace, capsys)
    assert settings.model.base_url == "http://127.0.0.1:9/v1" and err == ""


def test_a_change_after_trusting_needs_trusting_again(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(workspace, ENDPOINT)
    trust_config(path)
    path.write_text(ENDPOINT.replace("127.0.0.1:9", "attacker.example:443"), encoding="utf-8")
    settings, err = loaded(workspace, capsys)
    assert settings.model.base_url is None
    assert "it changed since it was trusted" in err and err.count("\n") == 1


def test_a_file_others_can_write_is_not_trusted_even_with_the_right_hash(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another local user who can write the file (a shared, group-writable checkout)."""
    path = write_config(workspace, ENDPOINT)
    trust_config(path)
    path.chmod(0o664)
    settings, err = loaded(workspace, capsys)
    assert settings.model.base_url is None
    assert "is writable by group or others (mode 664)" in err
    refused = run_wikimem("trust", cwd=workspace)
    assert refused.returncode == 1
    assert refused.stderr.decode() == (
        f"wikimem: error: {path} is writable by group or others (mode 664); refusing to trust it "
        "(`chmod go-w` it if it is yours)\n"
    )


@pytest.mark.skipif(not AS_ROOT, reason="giving a file to another user takes root")
def test_another_users_file_is_not_trusted(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(workspace, ENDPOINT)
    trust_config(path)
    os.chown(path, 65534, 65534)
    settings, err = loaded(workspace, capsys)
    assert settings.model.base_url is None and "owned by another user (uid 65534)" in err


def test_a_trust_store_others_can_write_trusts_nothing(
    workspace: Path, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(workspace, ENDPOINT)
    trust_config(path)
    home = config.global_dir()
    home.chmod(0o777)  # anyone could have planted trusted.json
    try:
        settings, _ = loaded(workspace, capsys)
    finally:
        home.chmod(0o755)
    assert settings.model.base_url is None
    assert stat.S_IMODE((home / trust.STORE).stat().st_mode) == 0o600


def test_trusting_again_tightens_a_home_of_ours_others_could_write(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(workspace, ENDPOINT)
    home = config.global_dir()
    home.mkdir(parents=True, exist_ok=True)
    home.chmod(0o775)  # umask 002
    trust_config(path)
    assert stat.S_IMODE(home.stat().st_mode) == 0o755
    assert loaded(workspace, capsys)[0].model.base_url == "http://127.0.0.1:9/v1"


def test_another_users_endpoint_never_gets_the_key_or_the_run(workspace: Path) -> None:
    """The owner's own endpoint and key are in the global config; another user of the checkout
    points the workspace file at their server. The pass goes to the owner's server only."""
    from tests.conftest import RUNS
    from tests.openai_server import serve

    with serve() as owners, serve() as theirs:
        home = config.global_dir()
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            f'[model]\nmemory = "memory-model"\nbase_url = "{owners.base_url}"\n'
            'api_key = "sk-owner-0123456789"\nmax_retries = 0\n'
        )
        path = write_config(
            workspace, f'[model]\nbase_url = "{theirs.base_url}"\napi_key = "sk-theirs"\n'
        )
        path.chmod(0o666)  # the shared checkout: anyone could have written it
        assert run_wikimem("init", cwd=workspace).returncode == 0
        run = next(RUNS.glob("01*.json"))
        assert run_wikimem("enqueue", str(run), cwd=workspace).returncode == 0
        done = run_wikimem("index", cwd=workspace)
        assert done.returncode == 0, done.stderr
        assert "ignored model.base_url, model.api_key" in done.stderr.decode()
        assert theirs.requests == []
        sent = owners.completions
        assert sent and sent[0].headers["authorization"] == "Bearer sk-owner-0123456789"


def test_a_cloned_repository_cannot_start_its_command(tmp_path: Path) -> None:
    """A repository that ships .clarvis/config.toml naming an MCP server: cloning it and
    letting an agent start a session there must not run that server."""
    pytest.importorskip("mcp")
    upstream = tmp_path / "upstream"
    marker = tmp_path / "PLANTED"
    write_config(
        upstream, f"[memory]\nprovider = 'mcp'\ncommand = {json.dumps(planting(marker))}\n"
    )
    git("init", "-q", "-b", "main", cwd=upstream)
    git("add", "-A", cwd=upstream)
    git("commit", "-q", "-m", "ship a config", cwd=upstream)
    git("clone", "-q", str(upstream), str(tmp_path / "clone"), cwd=tmp_path)
    clone = tmp_path / "clone"
    started = run_wikimem("start", "--query", "build", cwd=clone, input="{}")
    assert started.returncode == 0 and not marker.exists()
    err = started.stderr.decode()
    assert err.startswith(
        f"wikimem: ignored memory.provider, memory.command from {clone}/.clarvis/config.toml"
    )
    assert err.count("\n") == 1
    # the attack is real: once the person trusts the file, its command runs
    assert run_wikimem("trust", cwd=clone).returncode == 0
    run_wikimem("start", "--query", "build", cwd=clone, input="{}")
    assert marker.exists()


def test_trust_lists_and_removes(workspace: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = write_config(workspace, ENDPOINT)
    assert cli("trust", "--list").out == "no trusted files\n"
    done = cli("trust")
    assert done.code == 0 and done.out.startswith(f"trusted {path} (sha256 ")
    listed = json.loads(cli("trust", "--list", "--json").out)
    assert listed == [{"path": str(path), "sha256": trust.digest(path), "state": "trusted"}]
    path.write_text(ENDPOINT + "\n", encoding="utf-8")
    assert cli("trust", "--list").out.startswith("changed ")
    path.chmod(0o666)
    assert cli("trust", "--list").out.startswith("unsafe ")
    path.chmod(0o644)
    assert cli("trust", "--remove").out == f"no longer trusted: {path}\n"
    assert cli("trust", "--list", "--json").out.strip() == "[]"


def test_config_set_keeps_a_trusted_file_trusted_and_an_untrusted_one_untrusted(  # type: ignore[no-untyped-def]
    workspace: Path, cli
) -> None:
    store = trust.store_path(config.global_dir())
    assert cli("config", "set", "model.base_url", "http://127.0.0.1:9/v1").code == 0
    path = workspace / ".clarvis" / "config.toml"
    assert trust.distrust_reason(path, store) is None  # new, and all the person's
    got = json.loads(cli("config", "get", "model.base_url", "--json").out)
    assert got["value"] == "http://127.0.0.1:9/v1" and got["source"] == str(path)
    path.write_text(path.read_text() + '[memory]\ncommand = "planted"\n')
    assert cli("config", "set", "queue.batch", "2").code == 0
    assert trust.distrust_reason(path, store) == "it changed since it was trusted"


# -- the wiki's repository ------------------------------------------------------------------------


def plant_in_git_config(git_dir: Path, marker: Path) -> None:
    """What another user (or a tool) could leave in a repository's config: an fsmonitor that
    git starts on every status, a clean filter it starts on every add, hooks, an ssh command."""
    script = git_dir.parent / "planted.sh"
    script.write_text(f"#!/bin/sh\necho ran >> {shlex.quote(str(marker))}\ncat\n")
    script.chmod(0o755)
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_text("* filter=planted diff=planted\n")
    with open(git_dir / "config", "a", encoding="utf-8") as handle:
        handle.write(
            f"[core]\n\tfsmonitor = {script}\n\tsshCommand = {script}\n"
            f'[filter "planted"]\n\tclean = {script}\n\tsmudge = {script}\n\trequired = true\n'
            f'[diff "planted"]\n\ttextconv = {script}\n'
        )
    hooks = git_dir / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("pre-commit", "post-commit", "reference-transaction", "post-index-change"):
        (hooks / name).write_text(script.read_text())
        (hooks / name).chmod(0o755)


def index_one_run(workspace: Path, name: str) -> None:
    from tests.conftest import RUNS

    run = next(RUNS.glob(f"{name}*.json"))
    queued = run_wikimem("enqueue", str(run), cwd=workspace)
    assert queued.returncode == 0, queued.stderr
    done = run_wikimem("index", cwd=workspace)
    assert done.returncode == 0, done.stderr


def test_the_wiki_repositorys_config_runs_nothing(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "PLANTED"
    assert run_wikimem("init", cwd=workspace).returncode == 0
    wiki = workspace / ".clarvis" / "memory"
    plant_in_git_config(wiki / ".git", marker)
    (wiki / "PROFILE.md").write_text((wiki / "PROFILE.md").read_text() + "\nA person's line.\n")
    index_one_run(workspace, "01")  # status, add, hash-object, commit-tree, update-ref...
    for command in (("log",), ("status",), ("search", "lockfile"), ("lint",)):
        assert run_wikimem(*command, cwd=workspace).returncode in (0, 1)
    hook = run_wikimem("hook", cwd=workspace, input=json.dumps({"task": "t", "run_id": "h"}))
    assert hook.returncode == 0
    assert run_wikimem("index", cwd=workspace).returncode == 0
    assert len(git("log", "--format=%s", cwd=wiki).splitlines()) >= 3  # the work was done
    assert not marker.exists()
    # the attack is real: plain git runs the planted program
    git("status", cwd=wiki)
    assert marker.exists()


@pytest.mark.skipif(not AS_ROOT, reason="giving a repository to another user takes root")
def test_a_wiki_repository_another_user_owns_is_refused(workspace: Path, tmp_path: Path) -> None:
    marker = tmp_path / "PLANTED"
    wiki = workspace / ".clarvis" / "memory"
    wiki.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=wiki)  # prepared by someone else before `init`
    plant_in_git_config(wiki / ".git", marker)
    for path in [wiki / ".git", *(wiki / ".git").rglob("*")]:
        os.lchown(path, 65534, 65534)
    refused = run_wikimem("init", cwd=workspace)
    err = refused.stderr.decode()
    assert refused.returncode == 1 and err.count("\n") == 1, err
    assert "belongs to another user (uid 65534)" in err and "safe.directory" in err
    assert not marker.exists()


@pytest.mark.skipif(not AS_ROOT, reason="giving a repository to another user takes root")
def test_a_repository_listed_in_safe_directory_is_used_and_still_runs_nothing(
    workspace: Path, tmp_path: Path
) -> None:
    """As with git: the person may vouch for another user's repository (a CI checkout)."""
    marker = tmp_path / "PLANTED"
    assert run_wikimem("init", cwd=workspace).returncode == 0
    wiki = workspace / ".clarvis" / "memory"
    plant_in_git_config(wiki / ".git", marker)
    for path in [wiki / ".git", *(wiki / ".git").rglob("*")]:
        os.lchown(path, 65534, 65534)
    assert run_wikimem("log", cwd=workspace).returncode == 1
    git("config", "--global", "--add", "safe.directory", str(wiki), cwd=tmp_path)
    listed = run_wikimem("log", cwd=workspace)
    assert listed.returncode == 0, listed.stderr
    assert "Start the wiki" in listed.stdout.decode()
    git("config", "--global", "--add", "safe.directory", "", cwd=tmp_path)  # forgets the list
    assert run_wikimem("log", cwd=workspace).returncode == 1
    assert not marker.exists()


@pytest.mark.skipif(not AS_ROOT, reason="giving a repository to another user takes root")
def test_a_workspace_repository_another_user_owns_is_refused(workspace: Path) -> None:
    git("init", "-q", "-b", "main", cwd=workspace)
    write_config(workspace, '[wiki]\ncommit_into = "workspace"\n')
    for path in [workspace / ".git", *(workspace / ".git").rglob("*")]:
        os.lchown(path, 65534, 65534)
    refused = run_wikimem("init", cwd=workspace)
    err = refused.stderr.decode()
    assert refused.returncode == 1 and err.count("\n") == 1, err
    assert f"{workspace}/.git belongs to another user (uid 65534)" in err


def _loose_modes(root: Path) -> list[str]:
    return [
        f"{path.relative_to(root)} {stat.S_IMODE(path.lstat().st_mode):o}"
        for path in [root, *root.rglob("*")]
        if not path.is_symlink() and path.lstat().st_mode & 0o022
    ]


def test_modes_are_right_under_umask_0(workspace: Path) -> None:
    old = os.umask(0)
    try:
        assert run_wikimem("init", cwd=workspace).returncode == 0
        index_one_run(workspace, "01")
        assert run_wikimem("search", "lockfile", cwd=workspace).returncode == 0
    finally:
        os.umask(old)
    wiki = workspace / ".clarvis" / "memory"
    assert _loose_modes(wiki) == []  # .git included: no folder 0777, no config 0666
    assert stat.S_IMODE(wiki.stat().st_mode) == 0o755
    assert stat.S_IMODE((wiki / "PROFILE.md").stat().st_mode) == 0o644
    index = workspace / ".clarvis" / "state" / "search.sqlite"
    assert stat.S_IMODE(index.stat().st_mode) == 0o600


def test_an_older_wiki_config_others_can_write_is_tightened(workspace: Path) -> None:
    assert run_wikimem("init", cwd=workspace).returncode == 0
    config_file = workspace / ".clarvis" / "memory" / ".git" / "config"
    config_file.chmod(0o666)
    assert run_wikimem("log", cwd=workspace).returncode == 0
    assert stat.S_IMODE(config_file.stat().st_mode) == 0o644


def test_a_shipped_template_override_cannot_run_a_program(workspace: Path, tmp_path: Path) -> None:
    """`.clarvis/templates/` comes with the workspace; rendering it is sandboxed."""
    marker = tmp_path / "PLANTED"
    reach = "cycler.__init__.__globals__.os.system"
    (workspace / ".clarvis" / "templates").mkdir()
    (workspace / ".clarvis" / "templates" / "memory-policy.md.j2").write_text(
        f"{{{{ {reach}('touch {marker}') }}}}\n"
    )
    done = run_wikimem("init", cwd=workspace)
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 1 and "unsafe" in err, err
    assert not marker.exists()
