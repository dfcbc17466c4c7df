"""Commands that get memory back out and manage its life: context, search, forget, trash,
restore, purge, undo, verify, export, import, pause, resume."""

from __future__ import annotations
