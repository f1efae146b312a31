"""Writes of the journal's own: opening a play session, revealing a sealed roll."""

from django.db import transaction

from campaign.models import Campaign, Visibility
from journal import audit, sealing
from journal.events import publish
from journal.models import AuditEntry, EntryKind, PlaySession


def session_start(*, campaign_id: int, user) -> PlaySession:
    """The GM opens a play session: the history groups what follows under it."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        return PlaySession.objects.create(campaign=campaign, started_by=user)


class RevealRefused(Exception):
    """A reveal that cannot be made: `code` says why (views word it)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


NOT_SEALED, ALREADY_REVEALED = "not_sealed", "already_revealed"


def roll_reveal(*, campaign_id: int, entry_id: int, actor) -> AuditEntry:
    """The GM reveals a sealed roll: a new entry, visible to everyone, with the roll
    in full, the rule id of the roll, and in `before` what names the sealed entry (its id, seq,
    action, character name and commitment). The sealed entry itself is never changed; once
    revealed, every reader shows it in full (journal/sealing.py). Refused (`RevealRefused`) for
    an entry that is not a sealed roll or was revealed already. Raises AuditEntry.DoesNotExist
    for an entry of another campaign."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        entry = AuditEntry.objects.select_related("character").get(
            pk=entry_id, campaign_id=campaign.pk
        )
        if not sealing.is_sealed_roll(entry):
            raise RevealRefused(NOT_SEALED)
        if entry.pk in sealing.reveals_by_roll(campaign.pk):
            raise RevealRefused(ALREADY_REVEALED)
        text_fr, text_en = sealing.reveal_text(entry)
        draft = audit.Draft(
            kind=EntryKind.ROLL,
            action=sealing.REVEAL_ACTION,
            rule_id=entry.rule_id,
            character=entry.character,
            game_time=campaign.clock,
            field=sealing.REVEAL_FIELD,
            before={
                "entry": entry.pk,
                "seq": entry.seq,
                "action": entry.action,
                "character": entry.character_name,
                "commitment": sealing.seal_of(entry)["commitment"],
            },
            roll=entry.roll,
            typed_in=entry.typed_in,
            text_fr=text_fr,
            text_en=text_en,
            visibility=Visibility.EVERYONE,
        )
        (reveal,) = audit.append(campaign=campaign, actor=actor, drafts=[draft])
        characters = [entry.character_id] if entry.character_id is not None else []
        publish(campaign.pk, characters, reveal.pk)
    return reveal
