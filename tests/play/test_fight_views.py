"""Fights in rounds (R33) through the dashboard's fight section and the players' phones.

The services' arithmetic is tests/play/test_fight_services.py's; here: what the GM clicks and
sees (the section, its result slot, the cards' turn), refusals as a message in the section and
a 4xx, and who may do what (the GM, the owner when players roll, the others). Who may use each
URL at all is tests/test_permissions.py's table.
"""

import re

import pytest
from django.urls import reverse

from campaign.models import Campaign
from characters.models import Condition
from journal.models import AuditEntry
from play import services
from play.services import runner
from tests.helpers import db_state
from tests.play.steps import HTMX, from_dashboard


def fight_of(campaign):
    return Campaign.objects.get(pk=campaign.pk).fight


def url(world, name, *args):
    return reverse(name, args=[world.campaign.pk, *args])


def start(world, *characters, surprised=()):
    return services.fight_start(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        character_ids=[c.pk for c in characters],
        surprised_ids=[c.pk for c in surprised],
    )


def section(html: str) -> str:
    """The fight section of a page or of an answer (out of band)."""
    match = re.search(r'<section class="fight panel[^"]*" id="fight".*?</section>', html, re.S)
    assert match, "no fight section"
    return match.group(0)


def fighters(html: str) -> list[tuple[str, str, str, bool]]:
    """(name, actions left, reflexes left, its turn) of each row of the section, in order."""
    rows = re.findall(r'<li class="fighter[^"]*".*?</li>', section(html), re.S)
    return [
        (
            re.search(r"<strong>(.*?)</strong>", row).group(1),
            re.search(r'data-testid="actions-left">(\d+)<', row).group(1),
            re.search(r'data-testid="reflexes-left">(\d+)<', row).group(1),
            "its-turn" in row.split(">", 1)[0],
        )
        for row in rows
    ]


def card_tag(html: str, pk: int) -> str:
    match = re.search(rf'<article [^>]*id="character-{pk}"[^>]*>', html)
    assert match, f"no card {pk}"
    return match.group(0)


# ---------------------------------------------------------------------------------------------
# The GM's section on the dashboard


def test_r33_the_start_honours_the_places_the_gm_gave_not_the_list(gm_client, world):
    # The page lists the candidates in its own order; the places (numbered as ticked by
    # static/fight.js, or typed) are the GM's order.
    body = {
        "fighters": [world.pc.pk, world.other_pc.pk, world.npc.pk],
        f"place_{world.pc.pk}": "3",
        f"place_{world.other_pc.pk}": "1",
        f"place_{world.npc.pk}": "2",
    }
    response = gm_client.post(url(world, "fight_start"), body, **from_dashboard(world))
    assert response.status_code == 200
    assert fight_of(world.campaign)["order"] == [
        str(world.other_pc.pk),
        str(world.npc.pk),
        str(world.pc.pk),
    ]


def test_r33_a_fighter_without_a_place_comes_after_those_placed(gm_client, world):
    body = {"fighters": [world.pc.pk, world.npc.pk], f"place_{world.npc.pk}": "1"}
    gm_client.post(url(world, "fight_start"), body, **from_dashboard(world))
    assert fight_of(world.campaign)["order"] == [str(world.npc.pk), str(world.pc.pk)]


def test_r33_a_bad_place_is_refused_in_the_section(gm_client, world):
    body = {"fighters": [world.pc.pk], f"place_{world.pc.pk}": "0"}
    response = gm_client.post(url(world, "fight_start"), body, **from_dashboard(world))
    assert response.status_code == 400
    assert fight_of(world.campaign) is None
    assert 'data-testid="fight-error"' in response.content.decode()


def test_without_a_fight_the_section_offers_every_living_character(gm_client, world):
    world.other_pc.vital = "dead"
    world.other_pc.save()
    response = gm_client.get(url(world, "campaign"))
    assert response.status_code == 200
    html = section(response.content.decode())
    # The start form is drawn when the GM opens it: the dashboard lists no candidate.
    assert "Commencer le combat" not in html and 'name="fighters"' not in html
    assert f'hx-get="{url(world, "fight_start_form")}"' in html
    form = gm_client.get(url(world, "fight_start_form")).content.decode()
    assert "Commencer le combat" in form
    offered = re.findall(r'name="fighters" value="(\d+)"', form)
    assert sorted(map(int, offered)) == sorted([world.pc.pk, world.npc.pk])  # not the dead
    # The section sits under the party bar, with its own result slot below it.
    page = response.content.decode()
    assert page.index('id="party-bar"') < page.index('id="fight"') < page.index('id="result-fight"')
    assert page.index('id="result-fight"') < page.index('data-testid="card"')


def test_r33_the_gm_starts_a_fight_in_the_order_ticked(gm_client, world):
    before = AuditEntry.objects.count()
    body = {"fighters": [world.npc.pk, world.pc.pk], "surprised": [world.pc.pk]}
    response = gm_client.post(url(world, "fight_start"), body, **from_dashboard(world))
    assert response.status_code == 200
    fight = fight_of(world.campaign)
    assert fight["order"] == [str(world.npc.pk), str(world.pc.pk)]  # no initiative roll
    assert fight["round"] == 1 and fight["turn"] == 0
    html = response.content.decode()
    # The outcome in the fight's slot, and the section redrawn out of band.
    assert "Début du combat" in html.split('hx-swap-oob="innerHTML:.result-slot"')[0]
    assert 'id="fight" hx-swap-oob="true"' in html
    assert "Manche 1" in section(html)
    assert "Au tour de\u00a0: <strong>Le Vicomte masque</strong>" in section(html)
    # R25: Isaure, surprised, has one action and no reflex this round.
    assert fighters(html) == [("Le Vicomte masque", "2", "1", True), ("Isaure", "1", "0", False)]
    assert "Surpris" in section(html)
    # Both cards come back: they are in the fight now; the turn is on the Vicomte's.
    assert "its-turn" in card_tag(html, world.npc.pk)
    assert "its-turn" not in card_tag(html, world.pc.pk)
    assert 'data-seat="1.2.0.1.0"' in card_tag(html, world.pc.pk)
    assert AuditEntry.objects.filter(pk__gt=before, rule_id="R33").exists()


def test_r33_next_turn_moves_the_highlight_and_a_new_round_resets_the_budgets(gm_client, world):
    start(world, world.pc, world.npc)
    headers = from_dashboard(world)
    gm_client.post(url(world, "fight_spend", world.pc.pk, "action"), **headers)
    response = gm_client.post(url(world, "fight_next_turn"), **headers)
    assert response.status_code == 200
    html = response.content.decode()
    assert fighters(html) == [("Isaure", "1", "1", False), ("Le Vicomte masque", "2", "1", True)]
    # Both cards whose seat moved come back, though only the Vicomte's turn is in the log.
    assert "its-turn" in card_tag(html, world.npc.pk)
    assert "its-turn" not in card_tag(html, world.pc.pk)

    response = gm_client.post(url(world, "fight_next_turn"), **headers)
    html = response.content.decode()
    assert "Manche 2" in section(html)
    assert fighters(html) == [("Isaure", "2", "1", True), ("Le Vicomte masque", "2", "1", False)]


def test_r33_the_budget_follows_the_conditions_r20_r25(gm_client, world):
    Condition.objects.create(character=world.pc, kind="gene", cause="")  # R22: −1 action
    Condition.objects.create(character=world.npc, kind="ebranle", cause="")  # R20: no reflex
    start(world, world.pc, world.npc)
    html = gm_client.get(url(world, "campaign")).content.decode()
    assert fighters(html) == [("Isaure", "1", "1", True), ("Le Vicomte masque", "2", "0", False)]
    assert "Gêné" in section(html) and "Ébranlé" in section(html)


def test_r33_the_gm_moves_combatants_up_down_and_out(gm_client, world):
    start(world, world.pc, world.other_pc, world.npc)
    headers = from_dashboard(world)
    response = gm_client.post(url(world, "fight_move", world.npc.pk, "up"), **headers)
    assert response.status_code == 200
    assert [f[0] for f in fighters(response.content.decode())] == [
        "Isaure",
        "Le Vicomte masque",
        "Gaspard",
    ]
    gm_client.post(url(world, "fight_move", world.pc.pk, "down"), **headers)
    assert fight_of(world.campaign)["order"] == [
        str(world.npc.pk),
        str(world.pc.pk),
        str(world.other_pc.pk),
    ]
    # The turn stays with Isaure (R33: reordering does not pass the turn).
    assert fight_of(world.campaign)["turn"] == 1
    response = gm_client.post(url(world, "fight_move", world.other_pc.pk, "out"), **headers)
    assert [f[0] for f in fighters(response.content.decode())] == ["Le Vicomte masque", "Isaure"]
    # Gaspard's card is back without a seat.
    assert 'data-seat=""' in card_tag(response.content.decode(), world.other_pc.pk)


def test_r33_the_gm_ends_the_fight(gm_client, world):
    start(world, world.pc, world.npc, surprised=[world.pc])
    response = gm_client.post(url(world, "fight_end"), **from_dashboard(world))
    assert response.status_code == 200
    html = response.content.decode()
    assert fight_of(world.campaign) is None
    assert "Fin du combat" in html
    assert url(world, "fight_start_form") in section(html)  # the start, drawn when opened
    assert "its-turn" not in card_tag(html, world.pc.pk)
    assert not world.pc.conditions.exists()  # R25: the Surpris the start gave ends with it


def test_the_section_answers_alone_to_a_live_refetch(gm_client, world):
    start(world, world.pc, world.npc)
    response = gm_client.get(url(world, "campaign"), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="fight")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.strip().startswith('<section class="fight panel running" id="fight"')
    assert "party-bar" not in html
    # Closing the fight's result asks for the empty slot.
    response = gm_client.get(
        url(world, "campaign"), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="result-fight"
    )
    assert response.content == b""


# ---------------------------------------------------------------------------------------------
# Refusals: a message in the fight section, a 4xx, nothing written


@pytest.mark.parametrize(
    ("name", "args", "setup", "message"),
    [
        ("fight_next_turn", (), False, "Aucun combat en cours."),
        ("fight_end", (), False, "Aucun combat en cours."),
        ("fight_spend", ("pc", "action"), False, "Aucun combat en cours."),
        ("fight_move", ("pc", "up"), False, "Aucun combat en cours."),
        ("fight_move", ("pc", "up"), True, "Isaure joue déjà en premier."),
        ("fight_move", ("npc", "down"), True, "Le Vicomte masque joue déjà en dernier."),
        ("fight_move", ("other_pc", "up"), True, "Gaspard n’est pas dans le combat."),
        ("fight_start", (), True, "Un combat est déjà en cours"),
    ],
)
def test_a_refused_fight_action_says_why_in_the_section(
    gm_client, world, name, args, setup, message
):
    if setup:
        start(world, world.pc, world.npc)
    args = [getattr(world, a).pk if hasattr(world, a) else a for a in args]
    body = {"fighters": [world.pc.pk]} if name == "fight_start" else {}
    before = db_state()
    response = gm_client.post(url(world, name, *args), body, **from_dashboard(world))
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html.split("<section")[0]  # in #result-fight, where the GM looks
    assert 'role="alert"' in html
    assert 'id="fight" hx-swap-oob="true"' in html  # the section as it stands
    assert db_state() == before


def test_r33_spending_with_none_left_is_refused_with_the_round(gm_client, world):
    start(world, world.pc, world.npc)
    spend = url(world, "fight_spend", world.pc.pk, "reflex")
    assert gm_client.post(spend, **from_dashboard(world)).status_code == 200
    before = db_state()
    response = gm_client.post(spend, **from_dashboard(world))
    assert response.status_code == 400
    assert "Isaure n’a plus de réflexe cette manche (manche 1)." in response.content.decode()
    assert db_state() == before


def test_starting_a_fight_with_nobody_ticked_is_refused(gm_client, world):
    before = db_state()
    response = gm_client.post(url(world, "fight_start"), {}, **from_dashboard(world))
    assert response.status_code == 400
    assert "Cochez au moins un personnage pour le combat." in response.content.decode()
    body = {"fighters": [world.pc.pk], "surprised": [world.npc.pk]}
    response = gm_client.post(url(world, "fight_start"), body, **from_dashboard(world))
    assert "Seul un personnage du combat peut être surpris." in response.content.decode()
    assert db_state() == before


def test_without_htmx_a_refusal_is_the_whole_dashboard_with_the_message(gm_client, world):
    response = gm_client.post(url(world, "fight_next_turn"))
    assert response.status_code == 400
    html = response.content.decode()
    assert "<h1>La Tour de Sel</h1>" in html
    assert "Aucun combat en cours." in section(html)


def test_without_htmx_a_fight_action_goes_back_to_the_dashboard(gm_client, world):
    response = gm_client.post(url(world, "fight_start"), {"fighters": [world.pc.pk]})
    assert response.status_code == 302
    assert response["Location"] == url(world, "campaign")
    assert fight_of(world.campaign)["order"] == [str(world.pc.pk)]


@pytest.mark.parametrize(
    ("name", "args"), [("fight_move", ("pc", "sideways")), ("fight_spend", ("pc", "flux"))]
)
def test_an_unknown_move_or_spend_is_a_404(gm_client, world, name, args):
    start(world, world.pc)
    args = [getattr(world, a).pk if hasattr(world, a) else a for a in args]
    before = db_state()
    assert gm_client.post(url(world, name, *args)).status_code == 404
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# The players' phones


def test_r33_the_owner_sees_their_turn_on_their_sheet_and_home(player_client, world):
    start(world, world.npc, world.pc)
    world.campaign.refresh_from_db()
    sheet = player_client.get(url(world, "character", world.pc.pk)).content.decode()
    assert "Manche 1" in sheet
    assert "Au tour de\u00a0: <strong>Le Vicomte masque</strong>" in sheet
    assert "C’est votre tour" not in sheet
    assert "Isaure\u00a0: rang 2" in sheet
    services.fight_next_turn(campaign_id=world.campaign.pk, actor=world.gm)
    for page in (url(world, "character", world.pc.pk), url(world, "campaign")):
        html = player_client.get(page).content.decode()
        assert 'data-testid="your-turn">C’est votre tour<' in html
        assert re.search(r'data-testid="actions-left">2<', html)
    sheet = player_client.get(url(world, "character", world.pc.pk)).content.decode()
    assert "its-turn" in card_tag(sheet, world.pc.pk)


def test_r33_the_owner_spends_their_own_action_when_players_roll(player_client, world):
    start(world, world.pc, world.npc)
    sheet = url(world, "character", world.pc.pk)
    spend = url(world, "fight_spend", world.pc.pk, "action")
    assert spend in player_client.get(sheet).content.decode()
    response = player_client.post(spend, {"next": sheet})
    assert response.status_code == 302 and response["Location"] == sheet
    assert fight_of(world.campaign)["actions_left"] == [1, 2]
    entry = AuditEntry.objects.filter(rule_id="R33").latest("pk")
    assert entry.actor == world.player
    # From the phone (htmx), the sheet comes back: htmx keeps its fight strip.
    response = player_client.post(spend, {"next": sheet}, **HTMX, follow=True)
    assert 'id="fight-strip"' in response.content.decode()
    # None left: refused on the sheet, in the strip, with a 400.
    before = db_state()
    response = player_client.post(spend, {"next": sheet}, **HTMX)
    assert response.status_code == 400
    html = response.content.decode()
    strip = html[html.index('id="fight-strip"') :]
    assert "Isaure n’a plus d’action cette manche (manche 1)." in strip
    assert db_state() == before


def test_the_owner_cannot_spend_when_players_do_not_roll(player_client, world):
    world.campaign.players_roll = False
    world.campaign.save()
    start(world, world.pc)
    spend = url(world, "fight_spend", world.pc.pk, "action")
    assert spend not in player_client.get(url(world, "character", world.pc.pk)).content.decode()
    before = db_state()
    assert player_client.post(spend).status_code == 403
    assert db_state() == before


@pytest.mark.parametrize("character", ["other_pc", "npc"])
def test_a_player_cannot_spend_for_a_character_not_theirs(player_client, world, character):
    start(world, world.pc, world.other_pc, world.npc)
    before = db_state()
    pk = getattr(world, character).pk
    assert player_client.post(url(world, "fight_spend", pk, "action")).status_code == 403
    assert db_state() == before


@pytest.mark.parametrize("name", ["fight_start", "fight_next_turn", "fight_end", "fight_move"])
def test_players_cannot_run_the_fight(player_client, outsider_client, world, name):
    start(world, world.pc, world.npc)
    args = {"fight_move": [world.pc.pk, "down"]}.get(name, [])
    before = db_state()
    assert player_client.post(url(world, name, *args)).status_code == 403
    assert outsider_client.post(url(world, name, *args)).status_code == 404
    assert db_state() == before


def test_r33_the_turn_passing_publishes_both_seats_though_the_log_names_none(world):
    """The turn passes from Isaure to the Vicomte: the log's change is the campaign's fight,
    naming no character, yet both cards change (the highlight moves), so both are published
    for the live pages."""
    from journal import events as live

    start(world, world.pc, world.npc, world.other_pc)
    seen = []
    original = live.publish
    live_publish = lambda campaign_id, ids, log_id, **_: seen.append(list(ids))  # noqa: E731
    runner.publish = live_publish
    try:
        result = services.fight_next_turn(campaign_id=world.campaign.pk, actor=world.gm)
    finally:
        runner.publish = original
    assert {e.character_id for e in result.entries} == {None}
    assert seen == [sorted([world.pc.pk, world.npc.pk])]  # Gaspard's seat did not move
    assert result.character_ids == sorted([world.pc.pk, world.npc.pk])


def test_r33_a_players_stream_brings_their_card_when_its_seat_moves(world):
    """A player's stream reads the log through the visibility rule: the fight's change names
    no character, and their own characters whose seat moved come with it (live/stream.py)."""
    from journal import events as live
    from live import stream

    start(world, world.pc, world.npc)
    result = services.fight_next_turn(campaign_id=world.campaign.pk, actor=world.gm)
    event = live.Event(world.campaign.pk, tuple(result.character_ids), result.entries[-1].pk, True)
    mine = stream.Shown(cards=frozenset({world.pc.pk}))
    change, _ = stream._visible_change(event, world.player.pk, mine)
    assert change.campaign and change.cards == (world.pc.pk,)
    theirs = stream.Shown(cards=frozenset({world.other_pc.pk}))
    change, _ = stream._visible_change(event, world.other_player.pk, theirs)
    assert change.campaign and change.characters == () and change.cards == ()


def test_r33_the_fights_last_change_is_undone_from_its_result(gm_client, world):
    """The Undo in #result-fight reverts the turn: the section and both cards come back."""
    start(world, world.pc, world.npc)
    headers = from_dashboard(world)
    html = gm_client.post(url(world, "fight_next_turn"), **headers).content.decode()
    undo = re.search(
        r'<form method="post" action="([^"]+)" hx-post="[^"]+" hx-target="#result-fight"', html
    )
    assert undo, "no Undo in the fight's result"
    response = gm_client.post(undo.group(1), **headers, HTTP_HX_TARGET="result-fight")
    assert response.status_code == 200
    html = response.content.decode()
    assert fight_of(world.campaign)["turn"] == 0
    assert fighters(html)[0][3] and not fighters(html)[1][3]  # Isaure's turn again
    assert "its-turn" in card_tag(html, world.pc.pk)
    assert "its-turn" not in card_tag(html, world.npc.pk)


# ---------------------------------------------------------------------------------------------
# R9/R33: the dice of the rolls a round's length brings, typed in


def _hourly_rounds(world):
    from tests.play.steps import at, put

    Campaign.objects.filter(pk=world.campaign.pk).update(round_seconds=3600)
    # Stabilised at 08:00: the round's hour brings R13's waking try at 09:00.
    put(world.pc, vital="stabilised", pv=-1, stabilised_at=at(0), down_cause="chute")
    start(world, world.npc)


def test_r9_r33_the_next_turn_takes_typed_dice_when_the_round_moves_the_clock(gm_client, world):
    _hourly_rounds(world)
    page = gm_client.get(url(world, "campaign")).content.decode()
    assert 'data-testid="fight-dice"' in section(page)
    body = {"dice": "18 3"}  # the try's D20, then the sequel's D6 (R14)
    response = gm_client.post(url(world, "fight_next_turn"), body, **from_dashboard(world))
    assert response.status_code == 200
    roll = AuditEntry.objects.get(campaign=world.campaign, kind="roll", rule_id="R13")
    assert roll.typed_in and roll.roll["dice"] == [18]
    assert fight_of(world.campaign)["round"] == 2


def test_r9_r33_bad_or_unused_typed_dice_on_the_next_turn_are_refused(gm_client, world):
    _hourly_rounds(world)
    before = AuditEntry.objects.count()
    for dice in ("dix", "18 3 4"):
        response = gm_client.post(
            url(world, "fight_next_turn"), {"dice": dice}, **from_dashboard(world)
        )
        assert response.status_code == 400
        assert 'data-testid="fight-error"' in response.content.decode()
    assert AuditEntry.objects.count() == before and fight_of(world.campaign)["round"] == 1


def test_r33_the_next_turn_takes_no_dice_field_when_the_round_moves_no_clock(gm_client, world):
    start(world, world.npc, world.pc)
    page = gm_client.get(url(world, "campaign")).content.decode()
    assert 'data-testid="fight-dice"' not in section(page)


# ---------------------------------------------------------------------------------------------
# R33: reinforcements join, a combatant flees (« Ajouter au combat », « Retirer du combat »)


def test_r33_the_gm_adds_a_reinforcement_at_a_place_and_takes_one_out(gm_client, world):
    start(world, world.pc, world.npc)
    html = gm_client.get(url(world, "campaign")).content.decode()
    join = re.search(r'<form method="post" class="fight-join".*?</form>', section(html), re.S)
    assert join and "Ajouter au combat" in join.group(0)
    # Offered: who is not in the fight yet.
    assert re.findall(r'<option value="(\d+)">', join.group(0)) == [str(world.other_pc.pk)]
    assert 'title="Retirer du combat"' in section(html)
    assert 'aria-label="Retirer du combat\u00a0: Isaure"' in section(html)

    body = {"character": world.other_pc.pk, "place": "1"}
    response = gm_client.post(url(world, "fight_join"), body, **from_dashboard(world))
    assert response.status_code == 200
    html = response.content.decode()
    assert [f[0] for f in fighters(html)] == ["Gaspard", "Isaure", "Le Vicomte masque"]
    assert [f[3] for f in fighters(html)] == [False, True, False]  # the turn stays Isaure's
    assert "son premier tour viendra à la manche 2" in html.split("<section")[0]
    assert "fight-join" not in section(html)  # nobody left to add
    entry = AuditEntry.objects.filter(campaign=world.campaign, field="fight").latest("id")
    assert (entry.action, entry.rule_id) == ("fight_join", "R33")

    # Isaure flees on her turn: the turn passes to the Vicomte.
    response = gm_client.post(url(world, "fight_move", world.pc.pk, "out"), **from_dashboard(world))
    assert response.status_code == 200
    assert fighters(response.content.decode()) == [
        ("Gaspard", "2", "1", False),
        ("Le Vicomte masque", "2", "1", True),
    ]
    entry = AuditEntry.objects.filter(campaign=world.campaign, field="fight").latest("id")
    assert (entry.action, entry.rule_id) == ("fight_leave", "R33")
    # A reload shows the same order and turn.
    assert fighters(gm_client.get(url(world, "campaign")).content.decode()) == fighters(
        response.content.decode()
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "Choisissez qui rejoint le combat."),
        ({"character": "abc"}, "ne peut pas rejoindre le combat"),
        ({"character": "999999"}, "ne peut pas rejoindre le combat"),
        ({"character": "pc"}, "Isaure est déjà dans le combat."),
        ({"character": "other_pc", "place": "0"}, "La place est un nombre entier, 1 pour la"),
        ({"character": "other_pc", "place": "x"}, "La place est un nombre entier, 1 pour la"),
        ({"character": "other_pc", "place": "9"}, "La place de Gaspard va de 1 à 3, pas 9."),
        ({"character": "dead"}, "ne peut pas rejoindre le combat"),
    ],
)
def test_a_refused_join_says_why_in_the_section_with_a_400(gm_client, world, body, message):
    from characters.models import Character

    start(world, world.pc, world.npc)
    dead = Character.objects.create(
        campaign=world.campaign,
        name="Mort",
        kind="npc",
        pv=-3,
        pv_max=8,
        flux=0,
        flux_max=4,
        vital="dead",
    )
    named = {"pc": world.pc.pk, "other_pc": world.other_pc.pk, "dead": dead.pk}
    body = {key: named.get(value, value) for key, value in body.items()}
    before = db_state()
    response = gm_client.post(url(world, "fight_join"), body, **from_dashboard(world))
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html.split("<section")[0]
    assert 'role="alert"' in html
    assert db_state() == before


def test_a_character_of_another_campaign_cannot_join(gm_client, world):
    from campaign import services as campaign_services
    from characters.models import Character

    start(world, world.pc)
    other = campaign_services.campaign_create(user=world.gm, name="Les Marches")
    stranger = Character.objects.create(
        campaign=other, name="Ombre", pv=5, pv_max=5, flux=2, flux_max=2
    )
    before = db_state()
    body = {"character": stranger.pk}
    response = gm_client.post(url(world, "fight_join"), body, **from_dashboard(world))
    assert response.status_code == 400
    assert "ne peut pas rejoindre le combat" in response.content.decode()
    assert db_state() == before
    assert Character.objects.filter(pk=stranger.pk).exists()


def test_players_cannot_add_to_the_fight(player_client, outsider_client, world):
    start(world, world.pc)
    before = db_state()
    body = {"character": world.other_pc.pk}
    assert player_client.post(url(world, "fight_join"), body).status_code == 403
    assert outsider_client.post(url(world, "fight_join"), body).status_code == 404
    assert db_state() == before
