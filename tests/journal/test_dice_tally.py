"""The dice's tally kept with the log (journal/tally.py) is derivable from the log: after any
sequence of rolls, actions, undos, undos of undos and reveals it equals a recomputation, and
the statistics read from it equal those read from the log, for every viewer."""

import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from campaign.models import Membership, PartyVisibility, Visibility
from journal import services as journal_services
from journal import tally
from journal.models import AuditEntry, DiceTally
from journal.stats import kept_story, log_story
from play import services
from rules.engine import RuleError

pytestmark = pytest.mark.django_db


def _story_values(story):
    def values(t):
        return (
            t.key,
            t.label,
            t.role,
            t.tests,
            t.successes,
            t.expected,
            t.natural_1,
            t.natural_20,
            t.survie_passed,
            t.survie_failed,
            tuple(t.server_faces),
            tuple(t.typed_faces),
        )

    return (
        [values(t) for t in story.rollers],
        [values(t) for t in story.characters],
        values(story.server),
        values(story.typed),
    )


def _play(rng, campaign, characters, gm, player, steps):
    stat = next(iter(campaign.stats))
    for _ in range(steps):
        move = rng.random()
        character = rng.choice(characters)
        dice = [rng.randint(1, 20)] if rng.random() < 0.5 else None
        visibility = rng.choice([Visibility.EVERYONE, Visibility.GM_ONLY, None])
        try:
            if move < 0.35:
                services.character_check(
                    character_id=character.pk,
                    actor=rng.choice([gm, player]),
                    stat=stat,
                    skill=rng.choice([None, "Survie"]),
                    dice=dice,
                    visibility=visibility,
                )
            elif move < 0.55:
                services.character_damage(
                    character_id=character.pk,
                    actor=gm,
                    amount=rng.randint(1, 12),
                    ignores_pa=True,
                    dice=dice,
                    visibility=visibility,
                )
            elif move < 0.65:
                services.character_heal(character_id=character.pk, actor=gm, amount=5)
            elif move < 0.9:
                # Undo a whole action, or an undo (which brings its action back).
                entries = list(
                    AuditEntry.objects.filter(campaign=campaign, kind="change").values_list(
                        "pk", flat=True
                    )
                )
                if entries:
                    services.entry_undo(
                        campaign_id=campaign.pk,
                        actor=gm,
                        entry_id=rng.choice(entries),
                        whole_action=True,
                        force=True,
                    )
            else:
                sealed = [
                    e.pk
                    for e in AuditEntry.objects.filter(
                        campaign=campaign, kind="roll", visibility="gm"
                    )
                ]
                if sealed:
                    journal_services.roll_reveal(
                        campaign_id=campaign.pk, entry_id=rng.choice(sealed), actor=gm
                    )
        except (RuleError, services.UndoConflict, journal_services.RevealRefused):
            pass


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("party", [PartyVisibility.BARS, PartyVisibility.STATE])
def test_the_kept_tally_equals_the_log_after_rolls_undos_and_reveals(
    campaign, pc, other_pc, npc, gm, player, other_player, seed, party
):
    campaign.party_visibility = party
    campaign.save()
    _play(random.Random(seed), campaign, [pc, other_pc, npc], gm, player, 40)
    assert AuditEntry.objects.filter(campaign=campaign, reverts__isnull=False).exists()
    assert tally.kept(campaign) == tally.as_rows(tally.recompute(campaign))
    for user in (gm, player, other_player):
        member = Membership.objects.select_related("campaign").get(campaign=campaign, user=user)
        assert _story_values(kept_story(member)) == _story_values(log_story(member))


def test_an_undone_action_leaves_the_tally_and_its_undo_undone_brings_it_back(campaign, pc, gm):
    done = services.character_damage(character_id=pc.pk, actor=gm, amount=30, dice=[20])
    assert sum(row.tests for row in DiceTally.objects.filter(campaign=campaign)) == 1
    change = next(e for e in done.entries if e.kind == "change")
    undo = services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=change.pk, whole_action=True
    )
    assert sum(row.tests for row in DiceTally.objects.filter(campaign=campaign)) == 0
    services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=undo.entries[0].pk, whole_action=True
    )
    assert sum(row.tests for row in DiceTally.objects.filter(campaign=campaign)) == 1


def test_the_command_proves_the_tally_and_rebuilds_a_wrong_one(campaign, pc, gm):
    services.character_check(character_id=pc.pk, actor=gm, stat=next(iter(campaign.stats)))
    out = StringIO()
    call_command("dice_tally", campaign.pk, stdout=out)
    assert "equals the log" in out.getvalue()
    DiceTally.objects.filter(campaign=campaign).update(tests=5)
    with pytest.raises(CommandError):
        call_command("dice_tally", campaign.pk, stdout=StringIO(), stderr=StringIO())
    call_command("dice_tally", campaign.pk, "--rebuild", stdout=StringIO())
    call_command("dice_tally", stdout=StringIO())
    with pytest.raises(CommandError):
        call_command("dice_tally", 999999, stdout=StringIO())
