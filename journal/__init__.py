"""The audit log: append-only hash-chained entries, who may see each (visibility.py), the
history, exports and verify_log, and the after-commit announcements of new entries
(events.py). May import `characters`, `campaign` and `rules`."""
