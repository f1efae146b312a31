"""Sealed rolls: a roll only the GM sees shows players that it was made, what it was
for (action, character, rule id) and a commitment to its result, never the result; the GM may
reveal it later, and every device checks the revealed roll against the commitment it received.

The commitment is SHA-256 over `chroniqueur-sealed-roll-v1:<salt>:<opening>`, where the salt is
128 random bits (32 hex digits) and the opening a canonical JSON text of the roll: its campaign,
its place in the chain (seq), character, action, rule id, and the roll itself (every die,
modifier, total, difficulty, success). The salt keeps a D20's twenty possible results from
being tried one by one against the commitment.

Where it is kept: `audit.append` writes `{"commitment": …, "salt": …}` under `roll["seal"]` of
the roll's own entry, before that entry's HMAC is computed. The commitment is thus covered by
the keyed hash chain like every other column (verify_log proves it was not changed), without
a new hashed column (which would need a rehash migration of every old entry), and players hold
it from the moment the roll is written (pages, exports, the live stream's `sealed`).

Revealing is a new entry (the log is append-only): `field = REVEAL_FIELD`, visible to
everyone, with the roll in full and `before = {"entry", "seq", "commitment"}` naming the sealed
entry. The reveal entries of a campaign are few and indexed (`log_reveals`): readers load them
all once.

What a viewer is shown of a sealed entry is decided by `present`, which
journal/visibility.py applies to every entry read through `visible_entries` (pages, fragments,
exports, the feed). A GM sees everything; a player sees, until the reveal, only `SEALED_KEEPS`
and a sentence saying what the roll was for.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from journal.models import AuditEntry

PREFIX = "chroniqueur-sealed-roll-v1"
SALT_BYTES = 16  # 128 bits
REVEAL_FIELD = "seal"  # the `field` of a reveal entry
REVEAL_ACTION = "reveal"

_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def new_salt() -> str:
    return secrets.token_hex(SALT_BYTES)


def opening(
    *,
    campaign_id: int,
    seq: int,
    character: str,
    action: str,
    rule_id: str,
    roll: Mapping[str, Any],
) -> str:
    """The canonical text of a roll that the commitment binds (the roll's own "seal" left out)."""
    body = {
        "v": 1,
        "campaign": campaign_id,
        "seq": seq,
        "character": character,
        "action": action,
        "rule_id": rule_id,
        "roll": {key: value for key, value in roll.items() if key != "seal"},
    }
    return _ENCODE(body)


def commitment(salt: str, opened: str) -> str:
    """SHA-256 (hex) of `PREFIX:salt:opening`, UTF-8: what static/sealed.js recomputes."""
    return hashlib.sha256(f"{PREFIX}:{salt}:{opened}".encode()).hexdigest()


def verify(opened: str, salt: str, expected: str) -> bool:
    """Whether a revealed opening and salt match the commitment received before."""
    return hmac.compare_digest(commitment(salt, opened), str(expected))


def seal(*, campaign_id: int, seq: int, character: str, action: str, rule_id: str, roll: dict):
    """The roll with its seal (`roll["seal"] = {commitment, salt}`), to write at `seq`."""
    salt = new_salt()
    opened = opening(
        campaign_id=campaign_id,
        seq=seq,
        character=character,
        action=action,
        rule_id=rule_id,
        roll=roll,
    )
    return {**roll, "seal": {"commitment": commitment(salt, opened), "salt": salt}}


def opening_of(entry) -> str:
    """The opening of a sealed entry as it was written (journal.models.AuditEntry)."""
    return opening(
        campaign_id=entry.campaign_id,
        seq=entry.seq,
        character=entry.character_name,
        action=entry.action,
        rule_id=entry.rule_id,
        roll=entry.roll or {},
    )


def seal_of(entry) -> dict | None:
    """The `{commitment, salt}` a sealed entry (or its reveal) carries, or None."""
    roll = entry.roll if isinstance(entry.roll, dict) else None
    found = roll.get("seal") if roll else None
    return found if isinstance(found, dict) and found.get("commitment") else None


def is_sealed_roll(entry) -> bool:
    """A GM-only roll written with a seal (rolls written before sealed rolls existed have none
    and stay hidden from players, as they were)."""
    return (
        entry.kind == "roll"
        and entry.visibility == "gm"
        and entry.field != REVEAL_FIELD
        and seal_of(entry) is not None
    )


def is_reveal(entry) -> bool:
    return entry.kind == "roll" and entry.field == REVEAL_FIELD


def revealed_id(entry) -> int | None:
    """The sealed entry a reveal entry reveals."""
    before = entry.before if isinstance(entry.before, dict) else {}
    value = before.get("entry")
    return value if isinstance(value, int) else None


# ---------------------------------------------------------------------------------------------
# What a viewer is shown

# The words for what a sealed roll was for: its action, as the table says it.
ACTION_WORDS = {
    "damage": ("dégâts", "damage"),
    "check": ("test", "test"),
    "fall": ("chute", "fall"),
    "fall_ill": ("maladie", "illness"),
    "remedy": ("remède", "remedy"),
    "stabilise": ("stabilisation", "stabilising"),
    "wake": ("tentative de réveil", "waking try"),
    "clock": ("horloge", "clock"),
    "night": ("nuit de repos", "night's rest"),
    "hour_rest": ("repos d’une heure", "hour's rest"),
    "end_scene": ("fin de scène", "end of scene"),
    "free_roll": ("jet libre", "free roll"),
}

# The columns a player keeps of a sealed entry before its reveal; the rest is emptied.
SEALED_KEEPS = (
    "id",
    "campaign_id",
    "character_id",
    "character_name",
    "actor_id",
    "actor_name",
    "created_at",
    "game_time",
    "action",
    "batch",
    "kind",
    "rule_id",
    "visibility",
    "seq",
)


def sealed_text(entry) -> tuple[str, str]:
    """ "R10 · jet scellé du MJ (test) : résultat caché jusqu’à sa révélation", in both."""
    fr_word, en_word = ACTION_WORDS.get(entry.action, (entry.action, entry.action))
    prefix = f"{entry.rule_id} · " if entry.rule_id else ""
    return (
        f"{prefix}jet scellé du MJ ({fr_word}) : résultat caché jusqu’à sa révélation",
        f"{prefix}GM's sealed roll ({en_word}): result hidden until revealed",
    )


def reveal_text(entry) -> tuple[str, str]:
    """The reveal entry's sentence: the sealed entry's own, named."""
    return (
        f"Jet scellé n° {entry.pk} révélé : {entry.text_fr}",
        f"Sealed roll no. {entry.pk} revealed: {entry.text_en}",
    )


@dataclass(frozen=True)
class SealView:
    """What the page shows of a seal: the sealed entry's id, its commitment, and once revealed
    the opening and salt to check it with (`reveal_id`: the reveal entry)."""

    roll_id: int
    commitment: str
    reveal_id: int | None = None
    opening: str = ""
    salt: str = ""

    @property
    def revealed(self) -> bool:
        return bool(self.opening)


def present(entry, *, sees_all: bool, reveals: Mapping[int, Any]) -> None:
    """Set `entry.seal_view` and, for a player before the reveal, empty what would tell the
    result: the text, the roll (but its commitment), the steps, before and after.

    `reveals` maps a sealed entry's id to its reveal entry (`reveals_by_roll`). The instance
    is changed in memory only: AuditEntry.save() refuses to write an entry twice.
    """
    if is_reveal(entry):
        found = seal_of(entry) or {}
        entry.seal_view = SealView(
            roll_id=revealed_id(entry) or 0,
            commitment=(entry.before or {}).get("commitment", ""),
            reveal_id=entry.pk,
            opening=_opening_for_reveal(entry),
            salt=found.get("salt", ""),
        )
        return
    if not is_sealed_roll(entry):
        return
    found = seal_of(entry)
    reveal = reveals.get(entry.pk)
    if reveal is not None:
        # Revealed: everyone sees it in full, and can check it.
        entry.seal_view = SealView(
            entry.pk, found["commitment"], reveal.pk, opening_of(entry), found["salt"]
        )
        return
    entry.seal_view = SealView(entry.pk, found["commitment"])
    if sees_all:
        return  # the GM sees it all, and that it is still sealed to the players
    entry.text_fr, entry.text_en = sealed_text(entry)
    entry.roll = {"seal": {"commitment": found["commitment"]}}
    entry.steps = []
    entry.before = entry.after = None


def _opening_for_reveal(entry) -> str:
    """A reveal carries the sealed roll in full: its opening is rebuilt from it and from what
    `before` keeps of the sealed entry (its seq, action and character name as written)."""
    before = entry.before or {}
    return opening(
        campaign_id=entry.campaign_id,
        seq=before.get("seq", 0),
        character=before.get("character", ""),
        action=before.get("action", ""),
        rule_id=entry.rule_id,
        roll=entry.roll or {},
    )


def reveals_by_roll(campaign_id: int) -> dict[int, Any]:
    """The campaign's reveal entries by the id of the sealed entry each reveals (one query on
    the `log_reveals` index: a campaign has few)."""
    found = {}
    for reveal in AuditEntry.objects.filter(campaign_id=campaign_id, field=REVEAL_FIELD).order_by(
        "id"
    ):
        roll_id = revealed_id(reveal)
        if roll_id is not None:
            found.setdefault(roll_id, reveal)
    return found


def sealed_commitment(entry) -> str:
    """The commitment a player may be told of an entry (a sealed roll), else ""."""
    return seal_of(entry)["commitment"] if is_sealed_roll(entry) else ""
