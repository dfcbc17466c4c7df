"""Recall: reading memory back out (search, context, versions, verify, MCP); never writes."""
