"""Pausing memory for a workspace: a flag file the hook and `wikimem context` honour.

Invariant: pausing touches nothing but the flag (`.clarvis/state/paused`); settings, the queue
and the wiki stay as they are, so resuming is exactly removing the flag.
"""

from __future__ import annotations

from wikimem.config import Places
from wikimem.fsio import atomic_write_text

FLAG_TEXT = "Memory is paused here: hooks and `wikimem context` do nothing. `wikimem resume`.\n"


def paused(places: Places) -> bool:
    return places.paused_flag.exists()


def pause(places: Places) -> bool:
    """Set the flag; False when it was already set."""
    if paused(places):
        return False
    atomic_write_text(places.paused_flag, FLAG_TEXT)
    return True


def resume(places: Places) -> bool:
    """Remove the flag; False when memory was not paused."""
    try:
        places.paused_flag.unlink()
    except FileNotFoundError:
        return False
    return True
