"""Recall: reading memory back out (search, context, versions, verify, the MCP server); never writes."""
