"""Campaigns, their ruleset and game clock, members (GM / player), invitations and accounts.

The lowest Django app: it imports `rules` and Django only, never another app of ours.
"""
