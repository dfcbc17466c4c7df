"""Generate wikimem/redaction/vendored_rules.py from gitleaks' rule data (config/gitleaks.toml).

gitleaks (https://github.com/gitleaks/gitleaks, MIT licence, copyright (c) 2019 Zachary Rice)
keeps a rule per vendor token format: a Go RE2 pattern, the keywords that must occur for it to
run, a minimum entropy, the capture group that holds the secret, and allowlists. This script
translates each pattern for Python's `re` (a `(?i)` in mid-pattern becomes a scoped group, `\\z`
becomes `\\Z`, POSIX classes are spelled out), drops the rules that cannot apply to text with no
file path or that do not compile, and writes the rest as data with the revision it came from.

    python bench/gitleaks_rules.py /path/to/gitleaks.toml REVISION [--skip id,id,...] [--all]

Rules named in --skip or in SKIP below are left out (see the reasons beside SKIP), and so are
those in REDUNDANT unless --all is given (measure the overlap with --all, then regenerate).
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import tomllib

OUT = Path(__file__).resolve().parent.parent / "wikimem" / "redaction" / "vendored_rules.py"

# Rules left out, each with its reason (measured with tests/redaction_figures.py and
# bench/redaction_cost.py; see SECURITY.md).
SKIP: dict[str, str] = {
    # Key names followed by any value: wikimem's own assignment scanners cover this class with
    # its look-alike exceptions; gitleaks' version cost most of the time and all the false
    # positives on the look-alike sets.
    "generic-api-key": "position rules cover it; false positives and cost",
    # Private key blocks: wikimem's PEM scanner takes cut and escaped blocks too.
    "private-key": "wikimem's PEM scanner covers it",
    "pkcs12-file": "a path rule",
}

# Rules whose every sample wikimem's own table already removes (`python -m bench.gitleaks_overlap
# --samples 10 --seed 2 --list`, the "redundant" line): they would add cost and nothing else.
REDUNDANT = (
    "1password-service-account-token",
    "age-secret-key",
    "airtable-personnal-access-token",
    "anthropic-admin-api-key",
    "anthropic-api-key",
    "artifactory-api-key",
    "artifactory-reference-token",
    "aws-amazon-bedrock-api-key-long-lived",
    "aws-amazon-bedrock-api-key-short-lived",
    "azure-ad-client-secret",
    "bittrex-access-key",
    "clickhouse-cloud-api-secret-key",
    "clojars-api-token",
    "cohere-api-token",
    "confluent-secret-key",
    "databricks-api-token",
    "datadog-access-token",
    "digitalocean-access-token",
    "digitalocean-pat",
    "doppler-api-token",
    "dropbox-short-lived-api-token",
    "duffel-api-token",
    "dynatrace-api-token",
    "easypost-api-token",
    "easypost-test-api-token",
    "facebook-page-access-token",
    "flutterwave-public-key",
    "flutterwave-secret-key",
    "flyio-access-token",
    "freshbooks-access-token",
    "gcp-api-key",
    "github-app-token",
    "github-fine-grained-pat",
    "github-oauth",
    "github-pat",
    "github-refresh-token",
    "gitlab-cicd-job-token",
    "gitlab-deploy-token",
    "gitlab-feature-flag-client-token",
    "gitlab-feed-token",
    "gitlab-incoming-mail-token",
    "gitlab-kubernetes-agent-token",
    "gitlab-oauth-app-secret",
    "gitlab-pat",
    "gitlab-pat-routable",
    "gitlab-ptt",
    "gitlab-rrt",
    "gitlab-runner-authentication-token",
    "gitlab-scim-token",
    "grafana-api-key",
    "grafana-service-account-token",
    "heroku-api-key-v2",
    "infracost-api-token",
    "jfrog-api-key",
    "jfrog-identity-token",
    "linear-api-key",
    "maxmind-license-key",
    "new-relic-insert-key",
    "new-relic-user-api-id",
    "new-relic-user-api-key",
    "notion-api-token",
    "npm-access-token",
    "octopus-deploy-api-key",
    "openai-api-key",
    "openshift-user-token",
    "perplexity-api-key",
    "plaid-api-token",
    "prefect-api-token",
    "pulumi-api-token",
    "pypi-upload-token",
    "rapidapi-access-token",
    "readme-api-token",
    "rubygems-api-token",
    "scalingo-api-token",
    "sendinblue-api-token",
    "sentry-org-token",
    "sentry-user-token",
    "shopify-access-token",
    "shopify-custom-access-token",
    "shopify-private-app-access-token",
    "shopify-shared-secret",
    "sidekiq-sensitive-url",
    "slack-bot-token",
    "slack-config-access-token",
    "slack-config-refresh-token",
    "slack-legacy-bot-token",
    "slack-legacy-token",
    "slack-legacy-workspace-token",
    "slack-user-token",
    "sumologic-access-token",
    "telegram-bot-api-token",
    "twitter-access-secret",
    "twitter-access-token",
    "twitter-api-secret",
    "vault-batch-token",
    "yandex-api-key",
    "yandex-aws-access-token",
    "zendesk-secret-key",
)

_POSIX = {
    "[:alnum:]": "a-zA-Z0-9",
    "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9",
    "[:lower:]": "a-z",
    "[:upper:]": "A-Z",
    "[:space:]": r"\s",
    "[:xdigit:]": "0-9A-Fa-f",
    "[:word:]": r"\w",
    "[:punct:]": r"!-/:-@\[-`{-~",
}


def translate(pattern: str) -> str:
    """A Go RE2 pattern as a Python `re` pattern with the same meaning on text."""
    for posix, spelled in _POSIX.items():
        pattern = pattern.replace(posix, spelled)
    pattern = pattern.replace(r"\z", r"\Z").replace("(?<", "(?P<").replace("(?P<=", "(?<=")
    pattern = pattern.replace("(?P<!", "(?<!")
    return _scope_flags(pattern)


_DOT_MAX = 300
_FLAGS = re.compile(r"\(\?([imsU-]+)\)")


def _scope_flags(pattern: str) -> str:
    """`a(?i)b|c` -> `a(?i:b)|(?i:c)`: RE2 lets a flag group stand anywhere and apply to the
    rest of its enclosing group; Python accepts flags only at the start, or scoped."""
    out: list[str] = []
    scopes: list[list[str]] = [[]]  # per open group: the flags opened as scoped groups in it
    i = 0
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            for literal in ("^", "]"):
                if pattern[i : i + 1] == literal:
                    out.append(literal)
                    i += 1
            continue
        if c == "." and pattern[i + 1 : i + 2] in ("*", "+"):
            # `.*` between a command and its flag: bounded, so that a line holding the keyword
            # many times costs linear time, not quadratic (RE2 never backtracks; `re` does).
            out.append(f".{{0,{_DOT_MAX}}}" if pattern[i + 1] == "*" else f".{{1,{_DOT_MAX}}}")
            i += 2
            continue
        flags = _FLAGS.match(pattern, i)
        if flags:
            if i == 0 and "-" not in flags.group(1):
                out.append(flags.group())
            else:
                out.append(f"(?{flags.group(1)}:")
                scopes[-1].append(flags.group(1))
            i = flags.end()
            continue
        if c == "(":
            scopes.append([])
        elif c == ")":
            out.append(")" * len(scopes.pop()))
        elif c == "|" and scopes[-1]:
            out.append(")" * len(scopes[-1]) + "|" + "".join(f"(?{f}:" for f in scopes[-1]))
            i += 1
            continue
        out.append(c)
        i += 1
    out.append(")" * len(scopes[-1]))
    return "".join(out)


def _compiles(pattern: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            re.compile(pattern)
    except (re.error, FutureWarning, DeprecationWarning):
        return False
    return True


def _kind(rule_id: str) -> str:
    kind = rule_id.lower()
    while len(kind) > 40:
        kind = kind.rsplit("-", 1)[0]
    return kind


def generate(config: dict, revision: str, skip: set[str]) -> tuple[str, dict[str, list[str]]]:
    dropped: dict[str, list[str]] = {"no pattern": [], "does not compile": [], "skipped": []}
    rules = []
    for item in config["rules"]:
        rule_id = item["id"]
        if rule_id in skip or _kind(rule_id) in skip:
            dropped["skipped"].append(rule_id)
            continue
        if "regex" not in item:
            dropped["no pattern"].append(rule_id)
            continue
        pattern = translate(item["regex"])
        if not _compiles(pattern):
            dropped["does not compile"].append(rule_id)
            continue
        allows = []
        for allow in item.get("allowlists", []):
            regexes = tuple(translate(r) for r in allow.get("regexes", ()))
            if not all(_compiles(r) for r in regexes):
                regexes = tuple(r for r in regexes if _compiles(r))
            stopwords = tuple(s.lower() for s in allow.get("stopwords", ()))
            if not regexes and not stopwords:
                continue  # paths and commits only: nothing to check in a text
            condition = allow.get("condition", "OR").upper()
            if condition == "AND" and (allow.get("paths") or allow.get("commits")):
                continue  # needs a path to hold: never holds for a text
            target = allow.get("regexTarget", "secret")
            allows.append((condition == "AND", target, regexes, stopwords))
        keywords = tuple(sorted({k.lower() for k in item.get("keywords", ())}))
        rules.append(
            (
                _kind(rule_id),
                pattern,
                keywords,
                int(item.get("secretGroup", 0)),
                float(item.get("entropy", 0.0)),
                tuple(allows),
            )
        )
    glob = config.get("allowlist", {})
    global_regexes = tuple(translate(r) for r in glob.get("regexes", ()) if _compiles(translate(r)))
    global_stopwords = tuple(s.lower() for s in glob.get("stopwords", ()))
    lines = [
        '"""Token formats from gitleaks\' rule data (generated by bench/gitleaks_rules.py).',
        "",
        f"Source: https://github.com/gitleaks/gitleaks, config/gitleaks.toml at {revision}.",
        "Licence of the source data (MIT):",
        "",
    ]
    lines += ["    " + line if line else "" for line in LICENCE.splitlines()]
    lines += [
        "",
        "Do not edit: regenerate. Each rule: (kind, pattern for Python re, keywords (lowercase;",
        "the rule runs only where one occurs), secret group (0: the first non-empty group, or the",
        "match), minimum entropy (0: none), allowlists as (all must hold, target, regexes,",
        "stopwords)).",
        f"Dropped: {', '.join(f'{k} {len(v)}' for k, v in dropped.items())}.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "# fmt: off",
        "",
        f"REVISION = {revision!r}",
        f"GLOBAL_ALLOW = {global_regexes!r}",
        f"GLOBAL_STOPWORDS = {global_stopwords!r}",
        "RULES = (",
    ]
    lines += [f"    {r!r}," for r in rules]
    lines += [")", ""]
    return "\n".join(lines), dropped


LICENCE = """MIT License

Copyright (c) 2019 Zachary Rice

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE."""


def main(argv: list[str]) -> int:
    config = tomllib.loads(Path(argv[0]).read_text(encoding="utf-8"))
    skip = set(SKIP) | (set() if "--all" in argv else set(REDUNDANT))
    if "--skip" in argv:
        skip |= set(argv[argv.index("--skip") + 1].split(","))
    text, dropped = generate(config, argv[1], skip)
    OUT.write_text(text, encoding="utf-8")
    print(f"{len(config['rules'])} rules in the source; written to {OUT}")
    for reason, ids in dropped.items():
        print(f"dropped ({reason}): {len(ids)} {', '.join(ids)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
