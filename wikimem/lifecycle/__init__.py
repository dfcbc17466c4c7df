"""Lifecycle: forgetting, restoring, undoing, moving and sharing memory after it is written."""
