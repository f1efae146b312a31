"""Fights through the services (R33): a whole fight on the rows and the log, and its undo.

tests/rules proves the rounds' arithmetic on engine states; these play a fight the way the
GM's actions will, and read the rows and the log back.
"""

import pytest
from django.urls import reverse

from campaign.models import Campaign
from characters.models import Character
from journal.models import AuditEntry
from play import services
from tests.helpers import db_state
from tests.play.steps import at, conditions_of, put

SURPRIS = ("surpris", "fight")


def fight_of(campaign):
    return Campaign.objects.get(pk=campaign.pk).fight


def test_r33_a_whole_fight_on_the_rows_and_the_log(world):
    gm, campaign, pc, other = world.gm, world.campaign, world.pc, world.other_pc
    start = services.fight_start(
        campaign_id=campaign.pk,
        actor=gm,
        character_ids=[pc.pk, other.pk],
        surprised_ids=[pc.pk],
    )
    assert conditions_of(pc) == [SURPRIS]
    assert fight_of(campaign)["order"] == [str(pc.pk), str(other.pk)]

    services.fight_spend(character_id=other.pk, actor=gm, what="action")
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)  # Gaspard's turn
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)  # round 2: Surpris ends
    assert conditions_of(pc) == []
    assert fight_of(campaign)["round"] == 2
    services.fight_spend(character_id=pc.pk, actor=gm, what="reflex")
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)  # round 3
    end = services.fight_end(campaign_id=campaign.pk, actor=gm)

    assert fight_of(campaign) is None
    assert conditions_of(pc) == []
    fight = AuditEntry.objects.filter(campaign=campaign, field="fight").order_by("id")
    assert {e.rule_id for e in fight} == {"R33"}
    assert [e.action for e in fight] == [
        "fight_start",
        "fight_spend",
        "fight_next_turn",
        "fight_next_turn",
        "fight_spend",
        "fight_next_turn",
        "fight_next_turn",
        "fight_end",
    ]
    assert start.entries[-1].field == "fight" and end.entries[-1].field == "fight"
    assert [e.text_fr for e in fight] == [
        "R33 · Début du combat : Isaure, Gaspard ; manche 1, au tour de : Isaure",
        "R33 · Manche 1 · Gaspard : 2 actions, 1 réflexe → 1 action, 1 réflexe",
        "R33 · Manche 1, au tour de : Gaspard",
        "R33 · Fin de la manche 1 ; manche 2, au tour de : Isaure",
        "R33 · Manche 2 · Isaure : 2 actions, 1 réflexe → 2 actions, 0 réflexe",
        "R33 · Manche 2, au tour de : Gaspard",
        "R33 · Fin de la manche 2 ; manche 3, au tour de : Isaure",
        "R33 · Fin du combat (manche 3)",
    ]
    assert fight[3].text_en == "R33 · End of round 1; round 2, Isaure’s turn"
    # The Surpris the start gave (R25) is on the log too: put at the start, gone at round 2.
    surpris = AuditEntry.objects.filter(campaign=campaign, field="conditions").order_by("id")
    assert [(e.action, e.rule_id) for e in surpris] == [
        ("fight_start", "R25"),
        ("fight_next_turn", "R25"),
    ]


def test_r33_a_round_of_some_length_runs_every_characters_timers(world):
    # The NPC is not in the fight, yet its coma hour falls within the round (R32).
    Campaign.objects.filter(pk=world.campaign.pk).update(round_seconds=90)
    put(world.npc, pv=-2, vital="coma", next_coma_hour=at(minutes=1))
    services.fight_start(campaign_id=world.campaign.pk, actor=world.gm, character_ids=[world.pc.pk])

    result = services.fight_next_turn(campaign_id=world.campaign.pk, actor=world.gm)

    assert Campaign.objects.get(pk=world.campaign.pk).clock == at(minutes=1.5)
    assert Character.objects.get(pk=world.npc.pk).pv == -3  # R11: a PV lost in the hour
    assert world.npc.pk in result.character_ids


def test_r33_the_fights_combatants_are_loaded_though_not_named(world):
    # Isaure leaves the fight without being named: her Surpris from the start still ends.
    gm, campaign = world.gm, world.campaign
    services.fight_start(
        campaign_id=campaign.pk,
        actor=gm,
        character_ids=[world.pc.pk, world.other_pc.pk],
        surprised_ids=[world.pc.pk],
    )
    order = services.fight_set_order(
        campaign_id=campaign.pk, actor=gm, character_ids=[world.other_pc.pk]
    )
    assert conditions_of(world.pc) == []
    assert [e.text_fr for e in order.entries if e.field == "fight"] == [
        "R33 · Isaure quitte le combat ; ordre : Gaspard ; manche 1, au tour de : Gaspard"
    ]

    services.fight_set_order(campaign_id=campaign.pk, actor=gm, character_ids=[world.npc.pk])
    end = services.fight_end(campaign_id=campaign.pk, actor=gm)
    assert end.entries[-1].text_fr == "R33 · Fin du combat (manche 1)"


# ---------------------------------------------------------------------------------------------
# Undo: a fight's change is a campaign field like the clock


def test_undoing_the_end_of_a_fight_brings_it_back(world):
    gm, campaign = world.gm, world.campaign
    services.fight_start(
        campaign_id=campaign.pk, actor=gm, character_ids=[world.pc.pk, world.other_pc.pk]
    )
    services.fight_spend(character_id=world.pc.pk, actor=gm, what="action")
    running = fight_of(campaign)
    (end,) = services.fight_end(campaign_id=campaign.pk, actor=gm).entries

    undo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=end.pk)

    assert fight_of(campaign) == running
    (entry,) = undo.entries
    assert (entry.field, entry.reverts_id) == ("fight", end.pk)
    assert entry.text_fr == (
        f"Annulation de #{end.pk} · R33 · Début du combat : Isaure, Gaspard ; manche 1, "
        "au tour de : Isaure"
    )


def test_undoing_a_whole_fight_start_takes_its_surpris_away_too(world):
    gm, campaign = world.gm, world.campaign
    start = services.fight_start(
        campaign_id=campaign.pk,
        actor=gm,
        character_ids=[world.pc.pk, world.other_pc.pk],
        surprised_ids=[world.pc.pk],
    )

    services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=start.entries[0].pk, whole_action=True
    )

    assert fight_of(campaign) is None
    assert conditions_of(world.pc) == []


def test_undoing_a_fight_start_the_fight_has_moved_on_from_is_explained(world):
    gm, campaign = world.gm, world.campaign
    (start,) = services.fight_start(
        campaign_id=campaign.pk, actor=gm, character_ids=[world.pc.pk]
    ).entries
    services.fight_spend(character_id=world.pc.pk, actor=gm, what="action")
    before = db_state()

    with pytest.raises(services.UndoConflict) as conflict:
        services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=start.pk)

    assert db_state() == before
    (problem,) = conflict.value.problems
    assert problem.fr == (
        "— : combat vaut maintenant manche 1, au tour de : Isaure (Isaure 1 action, "
        "1 réflexe), plus manche 1, au tour de : Isaure (Isaure 2 actions, 1 réflexe) comme après "
        f"#{start.pk} ; annuler le remettrait à — et effacerait ce qui a changé depuis."
    )


def test_undoing_a_fight_change_from_the_history_page_explains_then_forces(world, gm_client):
    gm, campaign = world.gm, world.campaign
    (start,) = services.fight_start(
        campaign_id=campaign.pk, actor=gm, character_ids=[world.pc.pk]
    ).entries
    services.fight_spend(character_id=world.pc.pk, actor=gm, what="action")

    conflict = gm_client.post(reverse("entry_undo", args=[campaign.pk, start.pk]))
    forced = gm_client.post(reverse("entry_undo", args=[campaign.pk, start.pk]), {"force": "1"})

    # The conflict is explained (409) and the GM may force the undo: the fight is gone.
    assert conflict.status_code == 409
    assert "combat vaut maintenant manche 1" in conflict.content.decode()
    assert forced.status_code == 302
    assert fight_of(campaign) is None


# ---------------------------------------------------------------------------------------------
# R33: reinforcements join, a combatant flees, in the middle of a fight


def test_r33_a_reinforcement_joins_in_round_2_and_one_flees_logged_and_undoable(world):
    gm, campaign, pc, other, npc = world.gm, world.campaign, world.pc, world.other_pc, world.npc
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[pc.pk, other.pk])
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)  # round 2, Isaure's turn
    before = fight_of(campaign)

    joined = services.fight_join(campaign_id=campaign.pk, actor=gm, character_id=npc.pk)

    fight = fight_of(campaign)
    assert fight["order"] == [str(pc.pk), str(other.pk), str(npc.pk)]
    assert fight["round"] == 2 and fight["turn"] == 0 and fight["done"] == []
    (entry,) = [e for e in joined.entries if e.field == "fight"]
    assert (entry.action, entry.rule_id) == ("fight_join", "R33")
    assert entry.text_fr == (
        "R33 · Le Vicomte masque rejoint le combat (place 3) ; ordre : Isaure, Gaspard, "
        "Le Vicomte masque ; manche 2, au tour de : Isaure"
    )
    assert entry.text_en.startswith("R33 · Le Vicomte masque joins the fight (place 3); order:")

    # Isaure flees on her own turn: the turn passes to Gaspard, nobody else's changes.
    left = services.fight_leave(campaign_id=campaign.pk, actor=gm, character_id=pc.pk)
    fight = fight_of(campaign)
    assert fight["order"] == [str(other.pk), str(npc.pk)] and fight["turn"] == 0
    (entry,) = [e for e in left.entries if e.field == "fight"]
    assert (entry.action, entry.rule_id) == ("fight_leave", "R33")
    assert entry.text_fr == (
        "R33 · Isaure quitte le combat ; ordre : Gaspard, Le Vicomte masque ; manche 2, "
        "au tour de : Gaspard"
    )
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)  # the Vicomte, this round
    assert fight_of(campaign)["turn"] == 1 and fight_of(campaign)["round"] == 2

    # Undone like any fight change, newest first: back to the order before the newcomer.
    for result in (left, joined):
        for e in reversed([e for e in result.entries if e.field == "fight"]):
            services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=e.pk, force=True)
    assert fight_of(campaign) == before


def test_r33_joining_at_a_place_the_round_passed_waits_for_the_next_round(world):
    gm, campaign, pc, other, npc = world.gm, world.campaign, world.pc, world.other_pc, world.npc
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[pc.pk, other.pk])
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)  # Gaspard's turn
    result = services.fight_join(campaign_id=campaign.pk, actor=gm, character_id=npc.pk, place=1)
    fight = fight_of(campaign)
    assert fight["order"] == [str(npc.pk), str(pc.pk), str(other.pk)]
    assert sorted(fight["done"]) == sorted([str(pc.pk), str(npc.pk)])
    assert "son premier tour viendra à la manche 2" in " ".join(
        line for line in result.outcome.explanation_lines("fr")
    )
    services.fight_next_turn(campaign_id=campaign.pk, actor=gm)
    assert fight_of(campaign)["round"] == 2 and fight_of(campaign)["turn"] == 0
