"""Characters (PCs and NPCs), their conditions, sequels and illness, and the mapping between
their rows and the engine's states (state.py). May import `campaign` and `rules`."""
