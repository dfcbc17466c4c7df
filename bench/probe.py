"""A measured child process: peak memory of importing the pass's code, or of running one pass.

`python -m bench.probe imports|pass WORKSPACE` prints {"max_rss_mb": ...}; the model settings
come from the environment (the loopback server of the parent benchmark).
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

from wikimem import config


def main() -> None:
    what, workspace = sys.argv[1], Path(sys.argv[2])
    import wikimem.indexing.indexer  # noqa: F401
    import wikimem.indexing.model  # noqa: F401  (openai, as a pass imports it)

    if what == "pass":
        from wikimem.indexing.drain import drain

        places = config.Places(workspace=workspace, global_dir=workspace.parent / "global")
        settings = config.load(places, config.environ())
        reports = drain(places, settings)
        if not any(o.outcome == "changed" for r in reports for o in r.outcomes):
            raise SystemExit(f"probe pass changed nothing: {reports}")
    print(json.dumps({"max_rss_mb": round(peak_kb() / 1024, 1)}))


def peak_kb() -> int:
    """This process's peak resident set. Linux's VmHWM starts afresh at exec; ru_maxrss keeps
    the parent's peak across fork and exec, so it only serves where /proc is missing."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


if __name__ == "__main__":
    main()
