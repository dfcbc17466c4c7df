"""The wiki: pages, compiled TOPIC/PROFILE, lint, the change transaction and the git history."""
