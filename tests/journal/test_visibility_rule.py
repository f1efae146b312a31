"""journal.visibility holds one rule in two forms: `visible_entries` (a queryset, for pages and
exports) and `sees_entry` (Python, for the live stream, which reads a batch once for every
viewer). Both must say the same of every entry, for every member and party setting."""

import pytest

from campaign.models import Campaign, Membership, PartyVisibility
from characters.models import Character
from journal.models import AuditEntry
from journal.visibility import entry_facts, sees_entry, visible_entries
from play.requests import roll_request_create
from play.services.sheet import character_update
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
    # A character given to the player, then taken back: told to its former owner.
    ysolde = Character.objects.create(
        campaign=campaign,
        name="Ysolde",
        kind="pc",
        stats=world.pc.stats,
        pv=9,
        pv_max=9,
        flux=3,
        flux_max=3,
    )
    for owner in (world.player, None):
        character_update(character_id=ysolde.pk, actor=gm, owner=owner)
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


@pytest.mark.parametrize("party", list(PartyVisibility))
def test_the_former_owner_is_told_of_the_change_that_took_her_character(world, party):
    """Whatever the campaign shows of others' characters, the player a character was taken
    from sees that entry (her pages learn she no longer plays it), and nothing else of that
    character after it; the other player is told only what the party setting shows."""
    Campaign.objects.filter(pk=world.campaign.pk).update(party_visibility=party)
    pc, gm = world.pc, world.gm
    character_update(character_id=pc.pk, actor=gm, owner=None)
    taken = AuditEntry.objects.get(character=pc, field="owner")
    assert (taken.before, taken.after) == (world.player.pk, None)
    run(world.campaign, gm, "damage", {"amount": "3"}, character=pc)
    after = AuditEntry.objects.filter(character=pc, field="pv").get()

    memberships = {
        m.user_id: m
        for m in Membership.objects.filter(campaign=world.campaign).select_related("campaign")
    }
    former, other = memberships[world.player.pk], memberships[world.other_player.pk]
    facts = {f.id: f for f in entry_facts(AuditEntry.objects.filter(campaign=world.campaign))}
    for membership in (former, other):
        by_queryset = set(visible_entries(membership).values_list("id", flat=True))
        in_python = {pk for pk, f in facts.items() if sees_entry(membership, f)}
        assert in_python == by_queryset
    assert taken.pk in set(visible_entries(former).values_list("id", flat=True))
    # After it, the character is another's to her: only what the party setting shows.
    shows_others = party == PartyVisibility.BARS
    assert (after.pk in visible_entries(former).values_list("id", flat=True)) is shows_others
    assert (taken.pk in visible_entries(other).values_list("id", flat=True)) is shows_others
    # A GM-only owner change stays the GM's.
    character_update(character_id=world.other_pc.pk, actor=gm, owner=None, visibility="gm")
    hidden = AuditEntry.objects.get(character=world.other_pc, field="owner")
    assert not sees_entry(other, entry_facts(AuditEntry.objects.filter(pk=hidden.pk))[0])
    assert not visible_entries(other).filter(pk=hidden.pk).exists()
