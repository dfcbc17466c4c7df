"""Settings: the typed sections the code reads match the table `wikimem config` shows."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from wikimem import config
from wikimem.errors import ConfigError


def test_every_setting_has_a_typed_field_and_every_field_a_setting() -> None:
    fields = {
        f"{name}.{field.name}"
        for name, section in config.SECTIONS.items()
        for field in dataclasses.fields(section)
    }
    assert fields == set(config.SETTINGS)


def test_sections_read_defaults_files_and_the_environment(tmp_path: Path) -> None:
    places = config.Places(workspace=tmp_path / "ws", global_dir=tmp_path / "home")
    places.clarvis.mkdir(parents=True)
    places.workspace_config.write_text("[queue]\nbatch = 3\n[wiki]\npush = true\n")
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
