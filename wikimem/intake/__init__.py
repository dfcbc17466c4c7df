"""Intake: a run comes in, is redacted and bounded, and becomes a durable job in the queue."""
