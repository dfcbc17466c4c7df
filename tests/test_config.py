"""Settings: the typed sections the code reads match the table `wikimem config` shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikimem import config, trust
from wikimem.errors import ConfigError


def test_every_setting_has_a_typed_field_and_every_field_a_setting() -> None:
    fields = {
        f"{name}.{field}" for name, section in config.SECTIONS.items() for field in section._fields
    }
    assert fields == set(config.SETTINGS)


def test_sections_read_defaults_files_and_the_environment(tmp_path: Path) -> None:
    places = config.Places(workspace=tmp_path / "ws", global_dir=tmp_path / "home")
    places.clarvis.mkdir(parents=True)
    places.workspace_config.write_text("[queue]\nbatch = 3\n[wiki]\npush = true\n")
    trust.trust(places.workspace_config, trust.store_path(places.global_dir))
    settings = config.load(places, env={"WIKIMEM_LINGER": "0", "WIKIMEM_MODEL": "m1"})
    assert settings.queue.batch == 3
    assert settings.queue.max_attempts == 5
    assert settings.wiki.push is True
    assert settings.hook.linger == 0
    assert settings.model.memory == "m1"
    assert settings.model_settings().model == "m1"
    assert settings.values["queue.batch"].source == str(places.workspace_config)
    assert settings.override("queue.batch", 9, "test").queue.batch == 9
    assert settings.queue.batch == 3  # the original is unchanged


def test_a_bad_value_names_its_file(tmp_path: Path) -> None:
    places = config.Places(workspace=tmp_path / "ws", global_dir=tmp_path / "home")
    places.clarvis.mkdir(parents=True)
    places.workspace_config.write_text("[queue]\nbatch = 0\n")
    with pytest.raises(ConfigError, match="queue.batch: must be at least 1"):
        config.load(places, env={})


def test_config_and_config_get_speak_json(workspace: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-123456")
    assert cli("config", "set", "queue.batch", "3").code == 0
    every = json.loads(cli("config", "--json").out)
    assert every["queue.batch"]["value"] == 3 and every["queue.batch"]["source"].endswith(
        "config.toml"
    )
    assert every["model.api_key"]["value"] == "***"
    assert set(every) == set(config.SETTINGS)
    one = json.loads(cli("config", "get", "queue.batch", "--json").out)
    assert one == every["queue.batch"]


def test_offline_on_purpose_silences_the_no_model_warning(workspace: Path, cli, tmp_path) -> None:
    import json as _json

    from tests.conftest import example_run

    run = tmp_path / "run.json"
    run.write_text(_json.dumps(example_run("01")))
    cli("init")
    assert cli("enqueue", str(run)).code == 0
    warned = cli("index")
    assert "no model configured" in warned.err
    assert cli("config", "set", "model.offline", "true").code == 0
    second = dict(example_run("02"), run_id="offline-2")
    run.write_text(_json.dumps(second))
    assert cli("enqueue", str(run)).code == 0
    quiet = cli("index")
    assert quiet.code == 0 and "no model configured" not in quiet.err + quiet.out
    assert "offline rules, on purpose" in cli("status").out


def test_config_reads_as_toml_and_suggests_a_close_key(workspace: Path, cli) -> None:
    assert cli("config", "set", "model.fallbacks", "a,b").code == 0
    listing = cli("config").out
    assert 'model.fallbacks = ["a", "b"]  # ' in listing
    assert "model.base_url = # not set  # default" in listing
    assert "wiki.push = false  # default" in listing
    assert "    # retries of one request on 429/5xx/timeouts" in listing
    wrong = cli("config", "get", "model.timout")
    assert wrong.code == 2 and "did you mean 'model.timeout'?" in wrong.err


def test_config_listing_is_paged_on_a_terminal(workspace: Path, cli, tmp_path: Path) -> None:
    from tests.test_cli_wiki import _on_a_terminal

    seen = tmp_path / "paged.txt"
    pager = tmp_path / "pager.sh"  # a pager that keeps what it was given
    pager.write_text(f"#!/bin/sh\ncat > {seen}\n")
    pager.chmod(0o755)
    env = {"PAGER": str(pager), "LINES": "24", "COLUMNS": "80"}
    _on_a_terminal(["config"], workspace, env)
    assert "wiki.remote = " in seen.read_text()
    seen.unlink()
    straight = _on_a_terminal(["--no-pager", "config"], workspace, env)
    assert not seen.exists() and "wiki.remote = " in straight


def test_config_set_refuses_a_provider_no_one_provides(workspace: Path, cli) -> None:
    result = cli("config", "set", "memory.provider", "no-such-provider")
    assert result.code == 2 and "no provider 'no-such-provider'" in result.err
    assert cli("config", "get", "memory.provider").code == 0  # reads still work
    assert (
        not (workspace / ".clarvis/config.toml").exists()
        or "no-such" not in (workspace / ".clarvis/config.toml").read_text()
    )


def test_places_and_settings_are_frozen_records(tmp_path: Path) -> None:
    """Built without dataclasses (every hook imports this module), still immutable values."""
    places = config.Places(tmp_path / "ws", global_dir=tmp_path / "home")
    same = config.Places(workspace=tmp_path / "ws", global_dir=tmp_path / "home", found=True)
    assert places == same and hash(places) == hash(same) and places.found
    assert places != config.Places(tmp_path / "ws", tmp_path / "home", False)
    assert repr(places).startswith("Places(workspace=") and "found=True" in repr(places)
    with pytest.raises(AttributeError):
        places.workspace = tmp_path  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del places.found  # type: ignore[misc]
    with pytest.raises(TypeError, match="global_dir"):
        config.Places(workspace=tmp_path)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword"):
        config.Places(tmp_path, tmp_path, wiki=tmp_path)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple values"):
        config.Places(tmp_path, tmp_path, workspace=tmp_path)  # type: ignore[misc]
    settings = config.load(places, env={}).override("queue.batch", "3", "test")
    assert settings.queue.batch == 3 and settings.queue is settings.queue  # computed once
    assert settings.values["queue.batch"] == config.Value("queue.batch", 3, "test")
    with pytest.raises(AttributeError):
        settings.ignored = ()  # type: ignore[misc]
    assert config.Settings().values == {} and config.Bounds(1) == config.Bounds(low=1, high=None)
