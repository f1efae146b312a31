"""What a viewer may not see is absent everywhere: pages, the card fragment, the history and
its three exports; the GM's have it. One function decides it (campaign/visibility.py)."""

import pytest

from campaign.models import PartyVisibility
from play import services
from play.services import runner
from rules import engine
from tests.helpers import FORMATS, everything
from tests.play.steps import run


def test_a_gm_only_roll_is_nowhere_for_the_player_and_everywhere_for_the_gm(
    gm_client, player_client, world
):
    data = {"stat": "INS", "skill": "Secretissime", "difficulty": "10"}
    run(world.campaign, world.gm, "check", data, character=world.pc, typed=[20], visibility="gm")

    for place, text in everything(player_client, world, world.pc).items():
        assert "Secretissime" not in text, place
    gm_sees = everything(gm_client, world, world.pc)
    for place in ("history", "recap", *FORMATS):
        assert "Secretissime" in gm_sees[place], place


def test_gm_notes_are_nowhere_for_the_player(gm_client, player_client, world):
    run(world.campaign, world.gm, "damage", {"amount": "3"}, character=world.pc)
    for place, text in everything(player_client, world, world.pc).items():
        assert world.pc.gm_notes not in text, place
        assert world.other_pc.gm_notes not in text, place
    assert world.pc.gm_notes in everything(gm_client, world, world.pc)["sheet"]


@pytest.mark.parametrize("shown", [PartyVisibility.STATE, PartyVisibility.NOTHING])
def test_other_players_numbers_are_hidden_under_state_and_nothing(
    gm_client, player_client, world, shown
):
    world.campaign.party_visibility = shown
    world.campaign.save()
    # 9 damage − 4 PA: Gaspard's PV 18 → 13; then a condition (a state, not a number).
    run(world.campaign, world.gm, "damage", {"amount": "9"}, character=world.other_pc)
    run(world.campaign, world.gm, "add_condition", {"kind": "gene"}, character=world.other_pc)
    data = {"stat": "ADR", "skill": "Forgeronnerie", "difficulty": "10"}
    run(world.campaign, world.gm, "check", data, character=world.other_pc, typed=[12])

    player_sees = everything(player_client, world, world.other_pc)
    for place, text in player_sees.items():
        assert "18 → 13" not in text, place  # the PV change
        assert "13 / 18" not in text, place  # the bars
        assert "Forgeronnerie" not in text, place  # another character's roll
    # The card fragment of another player's character is refused outright.
    assert "Gaspard" not in player_sees["card"]
    # STATE shows the condition (a state); NOTHING shows no entry about Gaspard at all.
    for place in ("history", *FORMATS):
        assert ("Gêné" in player_sees[place] or "gene" in player_sees[place]) is (
            shown == PartyVisibility.STATE
        ), place

    gm_sees = everything(gm_client, world, world.other_pc)
    for place in ("history", *FORMATS):
        assert "18 → 13" in gm_sees[place], place
        assert "Forgeronnerie" in gm_sees[place], place
    assert "13 / 18" in gm_sees["card"]


def test_under_bars_the_party_sees_the_numbers(player_client, world):
    world.campaign.party_visibility = PartyVisibility.BARS
    world.campaign.save()
    run(world.campaign, world.gm, "damage", {"amount": "9"}, character=world.other_pc)
    player_sees = everything(player_client, world, world.other_pc)
    assert "13 / 18" in player_sees["home"]
    for place in ("history", *FORMATS):
        assert "18 → 13" in player_sees[place], place


def test_r5_a_gm_only_group_test_is_nowhere_for_the_player_and_everywhere_for_the_gm(
    gm_client, player_client, world, monkeypatch
):
    # One test for several ticked characters at once (play/services/group.py), GM only: the
    # same sealing as one character's, on the player's own character and another's. Natural
    # 20s, so the GM's recap lists both rolls among its notable ones (it lists only 1s and 20s).
    monkeypatch.setattr(
        runner, "dice_source", lambda typed: engine.ScriptedDice((20, 20), typed_in=False)
    )
    services.group_action(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        character_ids=[world.pc.pk, world.other_pc.pk],
        action="check",
        visibility="gm",
        arguments={"stat": "INS", "skill": "Secretissime", "difficulty": 10},
    )
    for character in (world.pc, world.other_pc):
        for place, text in everything(player_client, world, character).items():
            assert "Secretissime" not in text, (character.name, place)
    gm_sees = everything(gm_client, world, world.pc)
    for place in ("history", "recap", *FORMATS):
        assert "Secretissime" in gm_sees[place], place
