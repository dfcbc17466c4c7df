"""The wiki in a browser: `wikimem serve` as a real process, read by headless Chromium through
Playwright. Profile → topic → leaf by clicking, an entry's provenance and history, search, the
timeline drawn as a picture; a screenshot of each main page is checked to show something, and
each to differ from the others."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, example_run

CHROMIUM = next(
    (p for p in (os.environ.get("WIKIMEM_CHROMIUM"), shutil.which("chromium"),
                 shutil.which("chromium-browser"), shutil.which("google-chrome")) if p),
    None,
)  # fmt: skip
# In CI (which sets CI) the browser test must run: a missing Playwright or Chromium fails it
# there instead of skipping it; elsewhere it is skipped with the reason.
IN_CI = bool(os.environ.get("CI"))
if IN_CI:
    import playwright.sync_api as playwright
else:
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not IN_CI,
    reason="no Chromium on this machine (.ci/run installs Debian's chromium)",
)


def test_in_ci_the_browser_test_has_a_browser() -> None:
    assert CHROMIUM is not None or not IN_CI, "CI must run the browser test: install chromium"


WIKIMEM = [sys.executable, "-m", "wikimem"]


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory, template_env: dict[str, str]) -> Path:
    """A workspace with three runs learned (offline rules), made once for the module's tests
    (each serves a copy of its own)."""
    env = template_env
    workspace = tmp_path_factory.mktemp("site") / "ws"
    workspace.mkdir()
    subprocess.run([*WIKIMEM, "init"], cwd=workspace, env=env, check=True, capture_output=True)
    for n, name in enumerate(("01", "02", "03")):
        run = workspace.parent / f"{name}.json"
        run.write_text(json.dumps(dict(example_run(name), run_id=f"site-run-{n}")))
        subprocess.run([*WIKIMEM, "enqueue", str(run)], cwd=workspace, env=env, check=True)
    subprocess.run([*WIKIMEM, "index"], cwd=workspace, env=env, check=True, capture_output=True)
    return workspace


@pytest.fixture
def served(workspace: Path, learned: Path) -> Iterator[str]:
    """A copy of `learned` in the test's workspace, served."""
    shutil.copytree(learned, workspace, symlinks=True, dirs_exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [*WIKIMEM, "serve", "--port", "0"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()  # "wikimem: serving ... at http://127.0.0.1:PORT/": ready
    url = line.split(" at ")[1].split()[0]
    try:
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _browser(p):  # type: ignore[no-untyped-def]
    return p.chromium.launch(
        executable_path=CHROMIUM,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run"],
    )  # fmt: skip


def _pixels(png: bytes) -> bytes:
    """The image data of a PNG (its IDAT chunks, decompressed)."""
    import struct
    import zlib

    pos, data = 8, b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        if kind == b"IDAT":
            data += png[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return zlib.decompress(data)


def _shows_something(png: bytes) -> bool:
    """A screenshot that is not one flat colour: the page rendered text and shapes."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    raw = _pixels(png)
    return len(set(raw[:200_000])) > 8


def test_a_person_browses_profile_topic_leaf_search_and_timeline(
    served: str, tmp_path: Path
) -> None:
    shots = {}
    with playwright.sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page(viewport={"width": 1000, "height": 800})
        page.goto(served)
        assert "memory" in page.title()
        topics = page.locator("article a")
        assert topics.count() >= 2
        shots["profile"] = page.screenshot(full_page=True)
        page.locator("article a", has_text="Build").first.click()
        page.wait_for_url("**/build/TOPIC.md")
        page.locator("article a[href$='MEMORY.md']").first.click()
        page.wait_for_url("**/MEMORY.md")
        assert page.locator("article h2[id]").count() >= 1
        provenance = page.locator("#provenance table tr")
        assert provenance.count() >= 2  # a header and at least one entry
        assert "site-run-" in page.locator("#provenance").inner_text()
        shots["leaf"] = page.screenshot(full_page=True)
        page.locator("a", has_text="History of this leaf").click()
        assert "site-run-" in page.locator("pre").inner_text()
        page.fill("input[name=q]", "lockfile")
        page.press("input[name=q]", "Enter")
        page.wait_for_url("**/search?q=lockfile")
        hit = page.locator(".hit a").first
        assert hit.count() == 1
        hit.click()
        page.wait_for_url("**/MEMORY.md#*")
        page.goto(served + "timeline")
        assert page.locator("svg.timeline circle.mark").count() >= 1
        assert page.locator("ul.events li").count() >= 1
        shots["timeline"] = page.screenshot(full_page=True)
        missing = page.goto(served + "no/such/MEMORY.md")
        assert missing is not None and missing.status == 404
        escape = page.goto(served + "..%2f..%2fconfig.toml.md")
        assert escape is not None and escape.status == 404
        browser.close()
    for name, png in shots.items():
        assert _shows_something(png), name
        (tmp_path / f"{name}.png").write_bytes(png)
    # each main page draws its own content: no two screenshots alike (one page served for every
    # address, or an error page, would look the same each time)
    assert len({_pixels(png) for png in shots.values()}) == len(shots)
    if os.environ.get("WIKIMEM_UPDATE_SCREENSHOT"):
        (ROOT / "docs" / "wiki-view.png").write_bytes(shots["leaf"])


def test_page_text_is_shown_as_text_never_run_as_markup(workspace: Path, served: str) -> None:
    leaf = workspace / ".clarvis/memory/build/evil/MEMORY.md"
    leaf.parent.mkdir(parents=True, exist_ok=True)
    leaf.write_text(
        "---\ntitle: Evil\nsummary: s.\n---\n# Evil\n\n## Script\n\n"
        "<script>document.title='owned'</script> <img src=x onerror=\"document.title='owned'\">\n"
    )
    with playwright.sync_playwright() as p:
        browser = _browser(p)
        page = browser.new_page()
        page.goto(served + "build/evil/MEMORY.md")
        assert page.title() != "owned"
        assert "<script>" in page.locator("article").inner_text()
        assert page.locator("article script, article img").count() == 0
        browser.close()


def test_the_view_is_local_and_read_only(workspace: Path, served: str) -> None:
    import urllib.error
    import urllib.request

    assert served.startswith("http://127.0.0.1:")
    wiki = workspace / ".clarvis/memory"
    before = sorted((p.as_posix(), p.stat().st_mtime_ns) for p in wiki.rglob("*") if p.is_file())
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        request = urllib.request.Request(served + "PROFILE.md", data=b"x", method=method)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 501, method
    after = sorted((p.as_posix(), p.stat().st_mtime_ns) for p in wiki.rglob("*") if p.is_file())
    assert after == before
