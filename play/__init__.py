"""The table: one service per game action (services/), the action forms, the GM's
dashboard, cards, sheets and undo. May import `journal`, `characters`, `campaign`, `rules`."""
