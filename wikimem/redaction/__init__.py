"""Redaction: the engine that removes secrets from run snapshots, and its rule tables."""
