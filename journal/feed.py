"""The live roll feed of a character's sheet: the latest entries of the log about that
character that this member may see, newest first, each with a short line saying why its
numbers just moved ("R11 · heure de coma : PV −2 → −3"), which the phone shows as a toast.

Which entries, and how: journal.visibility's `visible_entries`, the rule of the history, the
stream and the exports (a GM's sealed roll reaches a player as it shows it: sealed, never its
result before the reveal); nothing here filters or rewrites entries by viewer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from journal import standing
from journal.models import AuditEntry
from journal.texts import field_name, in_language
from journal.visibility import visible_entries
from rules.engine.text import without_rule_ids

FEED_SIZE = 10  # entries under the sheet

# What a rule does to a character, in a few words: the "why" of a toast. A change written by
# no rule-specific step (R1: PV and Flux spent or healed) says which action made it instead.
RULE_REASONS = {
    "R3": ("dégâts", "damage"),
    "R10": ("à 0 PV", "at 0 PV"),
    "R11": ("heure de coma", "coma hour"),
    "R12": ("stabilisation", "stabilising"),
    "R13": ("essai de réveil", "waking try"),
    "R14": ("séquelle", "sequel"),
    "R15": ("soins dans le coma", "healing in a coma"),
    "R16": ("mort", "death"),
    "R17": ("nuit de repos", "night's rest"),
    "R18": ("heure de repos", "hour's rest"),
    "R19": ("nuit en clinique", "night in a clinic"),
    "R26": ("Flux à 0", "Flux at 0"),
    "R27": ("chute", "fall"),
    "R28": ("maladie", "illness"),
    "R29": ("remède", "remedy"),
    "R30": ("jour de maladie", "illness day"),
    "R31": ("manque de sommeil", "sleep deprivation"),
    "R32": ("horloge", "clock"),
    "R33": ("combat", "fight"),
    "R34": ("jet demandé", "requested roll"),
}
ACTION_REASONS = {
    "damage": ("dégâts", "damage"),
    "heal": ("soins", "healing"),
    "spend_flux": ("Flux dépensé", "Flux spent"),
    "restore_flux": ("Flux rendu", "Flux restored"),
    "add_condition": ("état ajouté", "condition added"),
    "remove_condition": ("état retiré", "condition removed"),
    "undo": ("annulation", "undo"),
}
# The fields a toast speaks of: what the sheet shows. The rules' own timers (coma due, next
# coma hour, …) stay in the feed and the history.
TOAST_FIELDS = frozenset(
    {
        "pv",
        "pv_max",
        "flux",
        "flux_max",
        "pa",
        "actions",
        "reflexes",
        "vital",
        "conditions",
        "sequels",
        "illness",
        "sleep_deprived",
        "stats",
    }
)
TOAST_LINES = 3  # a toast says at most this many things at once

# A hyphen before a number is a minus sign in print ("PV −2"), not in ids or dates.
_MINUS = re.compile(r"(?<![\w/.:-])-(?=\d)")


def typographic(text: str) -> str:
    """The log's sentence as print sets it: true minus signs."""
    return _MINUS.sub("\u2212", text)


# An undo's change names the entry it reverts (play/services/undo.py): a toast says « annulation »
# instead, the rule being the undone one's, not why the numbers moved now.
_REVERTS = re.compile(r"^(?:Annulation de|Undo of) #\d+ · ")


def reason(entry: AuditEntry) -> str:
    """Why the entry happened, in a few words of the page's language ("" when nothing says)."""
    if entry.reverts_id:
        return in_language(*ACTION_REASONS["undo"])
    words = RULE_REASONS.get(entry.rule_id) or ACTION_REASONS.get(entry.action)
    return in_language(*words) if words else ""


def toast_text(entry: AuditEntry) -> str:
    """ "R11 · heure de coma : PV −2 → −3": the change's rule, why, and what moved. A roll
    says what it was for itself ("R11 · Survie (VAI) : …"; a sealed roll, that it is sealed,
    as visible_entries showed it to this viewer)."""
    text = entry.shown_text
    if entry.kind != "change":
        return typographic(text)
    if entry.reverts_id:
        text = _REVERTS.sub("", text)
    prefix = f"{entry.rule_id} · " if entry.rule_id else ""
    body = text[len(prefix) :] if prefix and text.startswith(prefix) else text
    why = reason(entry)
    # "PV : 11 → 10" reads "PV 11 → 10" once a reason stands before it.
    name = in_language(*field_name(entry.field))
    for separator in (" : ", ": "):
        if body.startswith(name + separator):
            body = f"{name} {body[len(name) + len(separator) :]}"
            break
    if why:
        separator = " : " if in_language("fr", "en") == "fr" else ": "
        body = f"{why}{separator}{body}"
    return typographic(f"{prefix}{body}")


@dataclass(frozen=True)
class FeedItem:
    entry: AuditEntry
    text: str  # the log's sentence, typeset
    toast: str  # why the sheet's numbers moved; "" when this entry is not about them


def own_doing(membership, entry: AuditEntry) -> bool:
    """A player made this entry herself (her roll, a request she answered): her sheet showed
    its result where she acted, so a toast would say it a second time. (A GM acts from the
    dashboard, often with a sheet open elsewhere: the toast is news there.)"""
    return (
        not membership.is_gm and entry.actor_id is not None and entry.actor_id == membership.user_id
    )


def feed(membership, character, *, size: int = FEED_SIZE) -> list[FeedItem]:
    """The `size` latest entries about `character` that `membership` may see, newest first,
    with a toast line for those that moved its numbers, but for a player's own doing (shown
    where she did it). A sheet's feed is its character's: the
    party's entries are the history's."""
    entries = standing.mark(
        membership.campaign_id, visible_entries(membership).filter(character_id=character.pk)[:size]
    )
    # The rules' ids are the GM's references: a player's feed and toasts read without them
    # (the history's details keep them).
    said = (lambda text: text) if membership.is_gm else without_rule_ids
    return [
        FeedItem(
            entry,
            said(typographic(entry.shown_text)),
            said(toast_text(entry))
            if entry.character_id == character.pk
            and (entry.kind == "roll" or entry.field in TOAST_FIELDS)
            and not own_doing(membership, entry)
            else "",
        )
        for entry in entries
    ]
