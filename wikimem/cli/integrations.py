"""Commands that connect wikimem to agent runners and other machines: install, mcp, sync."""

from __future__ import annotations
