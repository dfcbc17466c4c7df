"""The two baselines a pass is compared with, measured on the same wiki in the same run.

- floor: the files a wikimem pass changed, written with plain writes, then `git add` and one
  `git commit` with the git command line. Nothing can record the same change for less.
- naive: what a pass would cost without wikimem's bounds: read every page, send the whole wiki
  to the model, re-render every page, recompile every topic and the profile, `git add -A` and
  commit. Same loopback model, same plan, same edit.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from tests.openai_server import OpenAIServer, Reply
from wikimem.fsio import read_text
from wikimem.indexing.plan import SCHEMA, parse, validate
from wikimem.wiki import markdown
from wikimem.wiki.compile import compile_profile, compile_topic
from wikimem.wiki.pages import Wiki
from wikimem.wiki.workspace import today

from .generate import Generated, git
from .measure import change_plan, change_run, model_env, open_workspace


def floor(generated: Generated, repeats: int) -> float:
    """Median seconds to write what the last wikimem commit changed and commit it with git.

    Call it right after a wikimem pass: each repeat steps the branch back one commit (untimed),
    then replays that commit's files with plain writes and the git command line (timed).
    """
    wiki = generated.workspace / ".clarvis" / "memory"
    changed = git(
        "diff-tree", "-r", "--name-only", "--no-commit-id", "HEAD~1", "HEAD", cwd=wiki
    ).split()
    contents = {path: git("show", f"HEAD:{path}", cwd=wiki) for path in changed}
    samples = []
    for _ in range(repeats):
        git("reset", "-q", "--hard", "HEAD~1", cwd=wiki)
        started = time.perf_counter()
        for path, text in contents.items():
            (wiki / path).write_text(text, encoding="utf-8")
        git("add", "--", *changed, cwd=wiki)
        git("commit", "-q", "--no-verify", "-m", "Record one lesson", cwd=wiki)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def naive(generated: Generated, server: OpenAIServer, number: int = 9000) -> dict[str, Any]:
    """One naive pass for a one-entry change: seconds and the characters sent to the model."""
    from wikimem.indexing.model import complete_json
    from wikimem.indexing.prompt import fence
    from wikimem.intake.record import normalise

    places, settings = open_workspace(generated, model_env(server))
    wiki = Wiki(places.wiki)
    leaf = generated.sample_leaf
    server.script(Reply.plan(change_plan(number, leaf)))
    started = time.perf_counter()
    pages = [(path, read_text(wiki.root / wiki.leaf_file(path))) for path in wiki.leaves()]
    topics = {t: read_text(wiki.root / wiki.topic_file(t)) for t in wiki.topics()}
    whole = "\n\n".join(f"## {path}\n\n{text}" for path, text in pages)
    whole += "\n\n".join(f"## {t}/TOPIC.md\n\n{text}" for t, text in topics.items())
    _, runs = fence([normalise(change_run(number, leaf))])
    prompt = [
        {"role": "system", "content": "Answer with a JSON edit plan for this wiki.\n" + whole},
        {"role": "user", "content": runs},
    ]
    _, raw = complete_json(settings.model_settings(), prompt, SCHEMA, parse)
    plan = validate(raw, wiki.entry_bodies)
    for path, text in pages:
        (wiki.root / wiki.leaf_file(path)).write_text(
            markdown.parse_page(text).render(), encoding="utf-8"
        )
    date = today()
    wiki.apply(plan.edits, date)
    for topic in topics:
        compile_topic(wiki, topic, date)
    compile_profile(wiki, date, settings.wiki.profile_max, places.workspace.name)
    git("add", "-A", cwd=places.wiki)
    git("commit", "-q", "--no-verify", "-m", "Naive pass", cwd=places.wiki)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "prompt_chars": sum(len(m["content"]) for m in prompt)}
