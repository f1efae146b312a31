"""Several targets at once (play/services/group.py, the dashboard's group bar): one action on
several ticked characters, each with their own rules, in one batch of the log, undone as one;
a bad selection or a player's request refused with nothing written.

The fixtures' numbers (tests/conftest.py): Isaure (pc, alice's) PV 11/14, Flux 7/10, PA 2;
Gaspard (other_pc, bruno's) PV 18/18, Flux 6/6, PA 4; le Vicomte (npc) PV 12/12, Flux 4/4,
PA 0. Server dice are scripted (`server_dice`) in the order the characters are played (by id).
"""

import pytest
from django.urls import reverse

from campaign import services as campaign_services
from campaign.models import Campaign
from characters.models import Character, Condition
from journal.models import AuditEntry, EntryKind
from play import services
from play.models import RequestStatus, RollRequest
from play.services import runner
from rules import engine
from tests.helpers import db_state
from tests.play.steps import from_dashboard


@pytest.fixture
def server_dice(monkeypatch):
    """Script the server's next rolls; `server_dice.stop()` gives the server its dice back."""
    original = runner.dice_source

    def script(*values):
        monkeypatch.setattr(
            runner, "dice_source", lambda typed: engine.ScriptedDice(values, typed_in=False)
        )

    script.stop = lambda: monkeypatch.setattr(runner, "dice_source", original)
    return script


def pv(*characters):
    return [Character.objects.get(pk=c.pk).pv for c in characters]


def group(world_gm, campaign, characters, action, **arguments):
    return services.group_action(
        campaign_id=campaign.pk,
        actor=world_gm,
        character_ids=[c.pk for c in characters],
        action=action,
        arguments=arguments,
    )


def test_r3_r10_each_character_takes_the_damage_through_their_own_pa_and_survie(
    campaign, gm, pc, other_pc, npc, server_dice
):
    """R3, R10: 13 damage on three characters: each loses it minus their own PA; the two who
    fall to 0 or below each roll their own Survie; all of it is one batch of the log."""
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=False)
    server_dice(20, 20)  # Isaure's Survie, then the Vicomte's: both pass
    result = group(gm, campaign, [npc, other_pc, pc], "damage", amount=13, cause="l’explosion")

    assert pv(pc, other_pc, npc) == [0, 9, -1]  # 13 − 2, 13 − 4, 13 − 0
    checks = [e for e in result.entries if e.kind == EntryKind.ROLL]
    assert sorted((e.rule_id, e.character_id) for e in checks) == sorted(
        [("R10", pc.pk), ("R10", npc.pk)]
    )
    assert len({e.batch for e in result.entries}) == 1
    assert {e.action for e in result.entries} == {"damage"}
    pv_entries = [e for e in result.entries if e.field == "pv"]
    assert {(e.rule_id, e.character_id) for e in pv_entries} == {
        ("R3", pc.pk),
        ("R3", other_pc.pk),
        ("R3", npc.pk),
    }
    assert result.character_ids == sorted([pc.pk, other_pc.pk, npc.pk])


def test_r34_the_players_survie_rolls_are_asked_together_and_hold_the_clock(
    campaign, gm, pc, other_pc, npc, server_dice
):
    """R34, R10: when players roll their characters' rules rolls, the two player characters
    who fall to 0 each get a request to their own player, in the same batch; the NPC's Survie
    is the server's; both requests hold the clock together until answered."""
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=True)
    server_dice(20)  # the Vicomte's Survie
    result = group(gm, campaign, [pc, other_pc, npc], "damage", amount=30, ignores_pa=True)

    asked = RollRequest.objects.filter(status=RequestStatus.PENDING).order_by("character_id")
    assert [(r.character_id, r.rule_id, r.holds_clock) for r in asked] == [
        (pc.pk, "R10", True),
        (other_pc.pk, "R10", True),
    ]
    assert {r.pk for r in result.requests} == {r.pk for r in asked}
    r34 = [e for e in result.entries if e.rule_id == "R34"]
    assert {e.character_id for e in r34} == {pc.pk, other_pc.pk}
    assert len({e.batch for e in result.entries}) == 1
    (npc_check,) = [e for e in result.entries if e.kind == EntryKind.ROLL]
    assert (npc_check.rule_id, npc_check.character_id) == ("R10", npc.pk)
    with pytest.raises(services.ClockWaits):
        services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=10)


def test_r26_flux_lost_makes_only_the_one_at_zero_extenue(campaign, gm, pc, npc):
    """R26: 4 Flux lost by two characters: the Vicomte (4 Flux) falls to 0 and is Exténué,
    Isaure (7 Flux) keeps 3 and is not."""
    result = group(gm, campaign, [pc, npc], "spend_flux", amount=4)

    assert [Character.objects.get(pk=c.pk).flux for c in (pc, npc)] == [3, 0]
    assert list(
        Condition.objects.filter(kind="extenue").values_list("character_id", flat=True)
    ) == [npc.pk]
    assert any(e.rule_id == "R26" and e.character_id == npc.pk for e in result.entries)


def test_r22_a_condition_for_every_ticked_character(campaign, gm, pc, other_pc, npc):
    """R22: Gêné given to two characters at once, each logged under its rule."""
    result = group(gm, campaign, [pc, npc], "add_condition", kind="gene")

    assert sorted(Condition.objects.filter(kind="gene").values_list("character_id", flat=True)) == (
        sorted([pc.pk, npc.pk])
    )
    assert {(e.rule_id, e.character_id) for e in result.entries} == {
        ("R22", pc.pk),
        ("R22", npc.pk),
    }


def test_r3_r20_undoing_the_batch_restores_every_character_as_one(
    campaign, gm, pc, other_pc, npc, server_dice
):
    """R3, R10, R20: the group's damage, Survie and coma on three characters are undone by one
    undo of the whole action; a condition given to them after is untouched."""
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=False)
    before = pv(pc, other_pc, npc)
    server_dice(1, 1)  # both Survies fail: coma (R10)
    result = group(gm, campaign, [pc, other_pc, npc], "damage", amount=14)
    assert Character.objects.get(pk=npc.pk).vital == "coma"
    server_dice.stop()
    last = [e for e in result.entries if e.kind == EntryKind.CHANGE][-1]

    undo = services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=last.pk, whole_action=True
    )
    assert pv(pc, other_pc, npc) == before
    assert set(Character.objects.values_list("vital", flat=True)) == {"up"}
    assert {e.character_id for e in undo.entries} >= {pc.pk, other_pc.pk, npc.pk}
    assert len({e.batch for e in undo.entries}) == 1


@pytest.mark.parametrize(
    "ids, words",
    [
        ([], "Sélectionnez au moins un personnage"),
        (["abc"], "n’existe pas"),
        (["٣"], "n’existe pas"),
        (["999999"], "n’est pas dans cette campagne"),
    ],
)
def test_a_bad_selection_is_refused_with_nothing_written(campaign, gm, pc, ids, words):
    """R1: nothing is applied to anybody when the selection is empty or names a character
    that is not the campaign's."""
    before = db_state()
    with pytest.raises(services.BadSelection) as refused:
        services.group_action(
            campaign_id=campaign.pk,
            actor=gm,
            character_ids=[pc.pk, *ids] if ids else [],
            action="heal",
            arguments={"amount": 1},
        )
    assert words in refused.value.message_fr
    assert "Rien n’a été appliqué" in refused.value.message_fr
    assert db_state() == before


def test_r1_another_campaigns_character_is_refused(campaign, gm, pc, outsider):
    """R1: a character of another campaign, even the GM's own, is never touched."""
    other = campaign_services.campaign_create(user=gm, name="Autre table")
    stranger = Character.objects.create(
        campaign=other, name="Étranger", pv=5, pv_max=5, flux=1, flux_max=1, stats={}
    )
    before = db_state()
    with pytest.raises(services.BadSelection):
        group(gm, campaign, [pc, stranger], "damage", amount=3)
    assert db_state() == before


def test_r26_one_characters_refusal_refuses_the_whole_action(campaign, gm, pc, npc):
    """R26: 6 Flux is more than the Vicomte has (4): refused, naming him, for everyone."""
    before = db_state()
    with pytest.raises(engine.NotEnoughFlux) as refused:
        group(gm, campaign, [pc, npc], "spend_flux", amount=6)
    assert "Le Vicomte masque" in refused.value.message_fr
    assert db_state() == before


def test_r9_typed_dice_are_refused_for_a_group(campaign, gm, pc, npc):
    """R9: typed-in dice belong to one roll of one character; a group's are the server's."""
    before = db_state()
    with pytest.raises(services.BadSelection):
        services.group_action(
            campaign_id=campaign.pk,
            actor=gm,
            character_ids=[pc.pk, npc.pk],
            action="check",
            arguments={"stat": "VAI", "difficulty": 10},
            dice=[12, 3],
        )
    assert db_state() == before


def test_every_group_action_has_its_form():
    from play.actions import GROUP_ACTIONS, GROUP_BUTTONS

    assert set(GROUP_ACTIONS) == set(services.GROUP_ROLLS) == {n for n, _ in GROUP_BUTTONS}
    assert all("dice" not in a.form.base_fields for a in GROUP_ACTIONS.values())


# ---------------------------------------------------------------------------------------------
# The view: POST, CSRF, the GM's permission, the answer


def url(campaign, action):
    return reverse("group_action", args=[campaign.pk, action])


def test_r3_the_gms_post_answers_each_outcome_and_redraws_every_card(world, gm_client, server_dice):
    """R3, R10: the answer lists each character's outcome and redraws their cards."""
    Campaign.objects.filter(pk=world.campaign.pk).update(players_roll_rules=False)
    server_dice(20)
    response = gm_client.post(
        url(world.campaign, "damage"),
        {"selected": [world.pc.pk, world.npc.pk], "amount": "12", "visibility": "everyone"},
        **from_dashboard(world),
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('data-testid="group-outcome"') == 2
    # In the dashboard's order: the NPC first, then the player characters, by name.
    assert html.index("Le Vicomte masque</strong>") < html.index("Isaure</strong>")
    assert "Isaure</strong>" in html and "Le Vicomte masque</strong>" in html
    assert "11 → <b>1</b>" in html  # Isaure: 12 − 2 PA
    assert "12 → <b>0</b>" in html  # the Vicomte: 12, no PA, then R10
    assert "R10 · Survie" in html
    assert f'id="character-{world.pc.pk}"' in html and f'id="character-{world.npc.pk}"' in html
    assert 'id="panel-group"' in html  # the form's panel closed
    assert 'hx-target="#result-group"' in html  # its Undo answers in the bar


def test_an_empty_selection_is_a_400_with_its_french_message_in_the_panel(world, gm_client):
    before = db_state()
    response = gm_client.post(
        url(world.campaign, "heal"),
        {"amount": "2", "visibility": "everyone"},
        **from_dashboard(world),
    )
    assert response.status_code == 400
    assert "Sélectionnez au moins un personnage" in response.content.decode()
    assert response["HX-Retarget"] == "#panel-group"
    assert db_state() == before


def test_a_refused_form_is_a_400_with_nothing_written(world, gm_client):
    before = db_state()
    response = gm_client.post(
        url(world.campaign, "damage"),
        {"selected": [world.pc.pk], "amount": "", "visibility": "everyone"},
        **from_dashboard(world),
    )
    assert response.status_code == 400
    assert "Ce champ est obligatoire" in response.content.decode()
    assert db_state() == before


def test_a_player_cannot_post_a_group_action(world, player_client):
    before = db_state()
    response = player_client.post(
        url(world.campaign, "damage"),
        {"selected": [world.pc.pk, world.other_pc.pk], "amount": "5", "visibility": "everyone"},
    )
    assert response.status_code == 403
    assert db_state() == before


def test_the_group_post_needs_the_csrf_token(world, gm):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(gm)
    before = db_state()
    response = client.post(url(world.campaign, "heal"), {"selected": [world.pc.pk], "amount": "1"})
    assert response.status_code == 403
    assert db_state() == before


def test_an_unknown_group_action_is_a_404(world, gm_client):
    assert gm_client.get(url(world.campaign, "revive")).status_code == 404


def test_the_dashboard_has_a_box_per_character_and_the_group_bar(world, gm_client):
    html = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert html.count('name="selected"') == 3
    assert "Sélectionner Isaure" in html
    assert 'id="group-bar"' in html and "Tout désélectionner" in html
    form = gm_client.get(url(world.campaign, "fall"), **from_dashboard(world)).content.decode()
    assert 'hx-include="#characters input[name=selected]:checked"' in form
    assert 'name="dice"' not in form


def test_undo_from_the_group_bar_undoes_the_batch_as_one(world, gm_client):
    """R3: the result's Undo (its whole action) reverts every character's change."""
    before = pv(world.pc, world.other_pc)
    response = gm_client.post(
        url(world.campaign, "damage"),
        {"selected": [world.pc.pk, world.other_pc.pk], "amount": "5", "visibility": "everyone"},
        **from_dashboard(world),
    )
    assert pv(world.pc, world.other_pc) == [8, 17]
    last = AuditEntry.objects.filter(kind=EntryKind.CHANGE).latest("id")
    assert f"/entries/{last.pk}/" in response.content.decode() or str(last.pk) in (
        response.content.decode()
    )
    undo = gm_client.post(
        reverse("action_undo", args=[world.campaign.pk, last.pk]),
        **from_dashboard(world),
        HTTP_HX_TARGET="result-group",
    )
    assert undo.status_code == 200
    assert pv(world.pc, world.other_pc) == before


def test_r5_a_test_for_several_rolls_each_with_their_own_statistic(
    campaign, gm, pc, other_pc, server_dice
):
    """R5: one test (PUI, difficulty 12) for two characters: one D20 each, each with their
    own PUI, each judged on its own."""
    server_dice(10, 10)
    result = group(gm, campaign, [pc, other_pc], "check", stat="PUI", difficulty=12)

    checks = {c.character_key: c for c in result.outcome.checks}
    assert set(checks) == {str(pc.pk), str(other_pc.pk)}
    for character in (pc, other_pc):
        check = checks[str(character.pk)]
        assert check.rule_id == "R5"
        assert check.total == 10 + character.stats["PUI"]
    rolls = [e for e in result.entries if e.kind == EntryKind.ROLL]
    assert {(e.rule_id, e.character_id) for e in rolls} == {("R5", pc.pk), ("R5", other_pc.pk)}
    assert len({e.batch for e in result.entries}) == 1


def test_r27_a_fall_for_several_rolls_each_ones_damage(campaign, gm, pc, npc, server_dice):
    """R27: the whole party falls two storeys: each rolls their own damage, in one batch."""
    server_dice(3, 4)
    result = group(gm, campaign, [pc, npc], "fall", storeys=2)

    falls = [r for r in result.outcome.rolls if r.rule_id == "R27"]
    assert {r.character_key for r in falls} == {str(pc.pk), str(npc.pk)}
    assert Character.objects.get(pk=pc.pk).pv < 11 and Character.objects.get(pk=npc.pk).pv < 12
    assert len({e.batch for e in result.entries}) == 1


def test_the_compact_dashboards_answer_redraws_rows(world, gm_client):
    """R15: healing from the compact view's group bar redraws the ticked rows as rows."""
    Character.objects.filter(pk=world.npc.pk).update(pv=5)
    response = gm_client.post(
        url(world.campaign, "heal"),
        {"selected": [world.pc.pk, world.npc.pk], "amount": "1", "visibility": "everyone"},
        **from_dashboard(world),
        HTTP_X_DASHBOARD_VIEW="compact",
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="character-{world.pc.pk}"' in html
    assert html.count('data-testid="row"') == 2 and 'data-testid="card"' not in html
