"""journal.visibility holds one rule in two forms: `visible_entries` (a queryset, for pages and
exports) and `sees_entry` (Python, for the live stream, which reads a batch once for every
viewer). Both must say the same of every entry, for every member and party setting."""

import pytest

from campaign.models import Campaign, Membership, PartyVisibility
from characters.models import Character
from journal.models import AuditEntry
from journal.visibility import entry_facts, sees_entry, visible_entries
from play.requests import roll_request_create
from tests.play.steps import run


@pytest.fixture
def varied_log(world):
    """Entries of every kind a viewer is told of or not: each character (owned by the player,
    by another player, by nobody), the campaign itself, rolls and changes, PV and vital state
    and conditions, public or for the GM only."""
    campaign, gm = world.campaign, world.gm
    # R34: a GM-only request (told to the player asked, and to nobody else) and a public one.
    for character, visibility in ((world.pc, "gm"), (world.other_pc, "everyone")):
        roll_request_create(
            character_id=character.pk,
            actor=gm,
            stat="INS",
            skill="Guet",
            difficulty=10,
            visibility=visibility,
        )
    for visibility, condition in (("everyone", "gene"), ("gm", "ebranle")):
        for character in (world.pc, world.other_pc, world.npc):
            run(
                campaign,
                gm,
                "check",
                {"stat": "INS", "difficulty": "10"},
                character=character,
                typed=[7],
                visibility=visibility,
            )
            run(
                campaign,
                gm,
                "add_condition",
                {"kind": condition},
                character=character,
                visibility=visibility,
            )
        run(campaign, gm, "clock", {"minutes": "30"}, visibility=visibility)
    for character, visibility in ((world.pc, "gm"), (world.other_pc, "everyone")):
        # R10: a Survie test at 0 PV, then the vital state changes.
        run(
            campaign,
            gm,
            "damage",
            {"amount": "20"},
            character=character,
            typed=[1],
            visibility=visibility,
        )
    Character.objects.filter(pk=world.npc.pk).update(owner=None)
    return AuditEntry.objects.filter(campaign=campaign)


@pytest.mark.parametrize("party", list(PartyVisibility))
def test_sees_entry_agrees_with_the_queryset_rule_for_every_member(world, varied_log, party):
    Campaign.objects.filter(pk=world.campaign.pk).update(party_visibility=party)
    facts = entry_facts(varied_log)
    kinds = {(f.kind, f.field, f.visibility, f.character_id is None) for f in facts}
    assert len(kinds) > 8  # the log is varied enough to tell the rules apart
    told_apart = set()
    for membership in Membership.objects.filter(campaign=world.campaign).select_related("campaign"):
        by_queryset = set(visible_entries(membership).values_list("id", flat=True))
        in_python = {f.id for f in facts if sees_entry(membership, f)}
        assert in_python == by_queryset, (party, membership.role, membership.user.username)
        told_apart.add(frozenset(by_queryset))
    # Not trivially equal: the GM, the owner and another player are told different things
    # (under BARS too: a GM-only request is told only to the player asked).
    assert len(told_apart) == 3
