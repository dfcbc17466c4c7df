"""Indexing: one pass turns queued jobs into a validated edit plan and applies it to the wiki."""
