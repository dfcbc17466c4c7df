"""Batch H of the held-apart redaction set (tests/data/redaction_held_apart/batch-h.jsonl).

Written from tools' documentation without reading the rules (see build_batch_h.py): model and
agent APIs (Replicate, OpenRouter, LangSmith, Langfuse, Tavily, Firecrawl, Apify, Deepgram,
ElevenLabs, AssemblyAI, Modal, fal, Chroma, Qdrant...), work and deploy tools (Figma, ClickUp,
HubSpot, Asana, Zoho, Terraform Cloud, Portainer, Octopus Deploy, Harness, Rancher, Akamai),
notification webhooks (Feishu and Lark, WeCom, IFTTT, Make, Zulip, Webex, Gotify, Bark, Power
Automate, Home Assistant), self-hosted services' config (Synapse, Mastodon, Authelia,
Vaultwarden, Gitea, Nextcloud, Syncthing, Prometheus, Telegraf, Zabbix, Graylog, Fluent Bit, Ceph,
cloud-init, kickstart, preseed, mail clients), CLIs (ipmitool, racadm, FreeRDP, lftp, aria2,
mount.cifs, net use, cmdkey, schtasks, PsExec, rpk, kcat, nmcli, podman, skopeo, oras...),
database drivers (Npgsql, ODP.NET, Firebird, Db2, Teradata, Informix, godror, DuckDB), web
frameworks, CI systems (AppVeyor, Semaphore, Tekton, Argo Workflows, Cloud Build, CodeBuild...),
logs, encodings, signing tools (cosign, Tauri, osslsigncode, jsign, age, Nostr, Sparkle), prose
in other languages, and look-alikes: hashes, ids, public and client-side keys, placeholders and
references, masked values and code that names a secret. The batch is measured once, blind, with
`python -m tests.test_redaction_batch_h` (add `-v` for every miss and false positive), which
prints recall and false positives per class with the same harness as the other held-apart sets.
"""

from __future__ import annotations

import sys

from tests.redaction_figures import (
    HELD_APART,
    check_batch_rows,
    check_builder_writes,
    check_distinct_rows,
    check_no_placeholder_secrets,
    measure_classes,
    print_batch,
    total,
)

BATCH_H = HELD_APART.with_name("batch-h.jsonl")
BUILDER = HELD_APART.with_name("build_batch_h.py")


def test_batch_h_rows_are_well_formed() -> None:
    check_batch_rows(BATCH_H, secrets=250, benign=120, classes=18)


def test_batch_h_secrets_are_not_placeholders() -> None:
    check_no_placeholder_secrets(BATCH_H)


def test_batch_h_rows_are_distinct_and_look_alikes_hold_no_secret() -> None:
    check_distinct_rows(BATCH_H)


def test_batch_h_file_is_what_its_builder_writes() -> None:
    check_builder_writes(BATCH_H, BUILDER)


# Measured once, blind, on 2026-12-03 at ef45bf3 after the rules fitted to batches D to G had
# landed: 221/257 removed (86.0 %), 11/121 look-alikes wrongly removed (9.1 %) (SECURITY.md).
# The bounds sit just outside, so a rule change that loses ground here fails.
BATCH_H_RECALL = 0.995  # fitted 2026-12-03: 257/257 (100 %); blind 221/257 (86.0 %)
BATCH_H_FALSE_POSITIVES = 0.005  # fitted 2026-12-03: 0/121 (0.0 %); blind 11/121 (9.1 %)


def test_batch_h_holds_its_blind_figures() -> None:
    figures = total(measure_classes(BATCH_H))
    assert figures.caught / figures.secrets >= BATCH_H_RECALL, figures
    assert figures.false_positives / figures.benign <= BATCH_H_FALSE_POSITIVES, figures


def main(argv: list[str] | None = None) -> int:
    return print_batch(BATCH_H, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
