"""Where a lesson lives: one leaf per tool, under the area of work the tool belongs to.

Both extractors file by this: the offline rules write a tool's lessons to `home(tool, leaves)`
and the prompt tells the model the same home for every tool its runs used, so one lesson never
ends up split across `terraform/troubleshooting` and `infra/terraform`.

Invariant: a home is a valid wiki path, and an existing leaf that already holds the tool (named
after it, or under a topic named after it) always wins over the default.
"""

from __future__ import annotations

from collections.abc import Iterable

# The area (topic) a tool's lessons belong to; a tool not listed goes under `tools/`.
AREAS: dict[str, frozenset[str]] = {
    "build": frozenset(
        [
            "bun",
            "npm",
            "pnpm",
            "yarn",
            "node",
            "nvm",
            "fnm",
            "volta",
            "corepack",
            "cargo",
            "rustc",
            "rustup",
            "maturin",
            "make",
            "cmake",
            "ninja",
            "bazel",
            "gradle",
            "mvn",
            "go",
            "tsc",
            "webpack",
            "vite",
            "esbuild",
            "rollup",
            "uv",
            "pip",
            "poetry",
            "pdm",
            "pipx",
            "setuptools",
            "gcc",
            "clang",
            "protoc",
            "buf",
            "swift",
            "xcodebuild",
            "dotnet",
        ]
    ),
    "testing": frozenset(
        [
            "pytest",
            "jest",
            "vitest",
            "playwright",
            "mocha",
            "cypress",
            "tox",
            "nox",
            "unittest",
            "rspec",
            "phpunit",
            "ctest",
        ]
    ),
    "lint": frozenset(
        [
            "ruff",
            "eslint",
            "prettier",
            "mypy",
            "black",
            "flake8",
            "pyright",
            "pylint",
            "golangci-lint",
            "biome",
            "stylelint",
            "shellcheck",
            "isort",
        ]
    ),
    "deploy": frozenset(
        [
            "docker",
            "docker-compose",
            "podman",
            "gcloud",
            "kubectl",
            "helm",
            "fly",
            "flyctl",
            "heroku",
            "vercel",
            "netlify",
            "aws",
            "az",
            "wrangler",
            "skaffold",
            "kustomize",
        ]
    ),
    "infra": frozenset(
        ["terraform", "tofu", "terragrunt", "pulumi", "ansible", "ansible-playbook", "packer"]
    ),
    "database": frozenset(
        [
            "alembic",
            "psql",
            "mysql",
            "prisma",
            "sqlite3",
            "redis-cli",
            "pg-dump",
            "pg-restore",
            "flyway",
            "liquibase",
            "mongosh",
        ]
    ),
    "ci": frozenset(["gh", "act"]),
}
DEFAULT_AREA = "tools"

# How a tool's name is written where a person writes it; a tool not listed keeps the spelling
# of the command line it came from.
NAMES = {
    "alembic": "Alembic",
    "bun": "Bun",
    "cargo": "Cargo",
    "docker": "Docker",
    "gh": "GitHub CLI",
    "helm": "Helm",
    "make": "Make",
    "playwright": "Playwright",
    "poetry": "Poetry",
    "prisma": "Prisma",
    "terraform": "Terraform",
    "vite": "Vite",
    "yarn": "Yarn",
}


# Files that say where a lesson belongs when its tool does not (`curl` fixed by a workflow edit).
FILE_HOMES = (
    (".github/workflows/", "ci/github-actions", "GitHub Actions"),
    (".gitlab-ci.yml", "ci/gitlab", "GitLab CI"),
    (".circleci/", "ci/circleci", "CircleCI"),
    ("Dockerfile", "deploy/docker", "Docker"),
)


def file_home(paths: Iterable[str]) -> tuple[str, str]:
    """(leaf, name) every edited file points to, or ("", "") when they point nowhere or apart."""
    found = {
        (leaf, name)
        for path in paths
        for prefix, leaf, name in FILE_HOMES
        if path.removeprefix("./").startswith(prefix)
    }
    return found.pop() if len(found) == 1 else ("", "")


def area(tool: str) -> str:
    return next((name for name, tools in AREAS.items() if tool in tools), DEFAULT_AREA)


def display_name(tool: str, written: str = "") -> str:
    """`Terraform`, `pytest`, `npm`: the known spelling, else the word as the command wrote it."""
    if tool in NAMES:
        return NAMES[tool]
    return written if written and written.lower() == tool else tool


def home(tool: str, leaves: Iterable[str]) -> str:
    """The leaf a tool's lessons go to: one that already holds the tool, else `<area>/<tool>`."""
    named = sorted(
        (leaf for leaf in leaves if tool in leaf.split("/")),
        key=lambda leaf: (leaf.split("/")[-1] != tool, leaf.count("/"), leaf),
    )
    return named[0] if named else f"{area(tool)}/{tool}"
