"""R34 through the pages: the GM asks from a card or the party bar, the phone answers.

Isaure (`pc`, owned by `player`): ADR 1, VAI 1, 11 PV, 2 PA.
"""

from datetime import timedelta

from django.urls import reverse

from campaign.models import Campaign, Membership
from characters.models import Character
from journal.models import AuditEntry
from play.models import RollRequest
from play.requests import roll_request_create
from tests.helpers import settings_data

HTMX = {"HTTP_HX_REQUEST": "true"}


def on(path):
    """htmx's headers for a request from the page at `path` (the parts it shows)."""
    return {**HTMX, "HTTP_HX_CURRENT_URL": f"http://testserver{path}"}


def _ask_url(campaign, character):
    return reverse("roll_ask", args=[campaign.pk, character.pk])


def _answer_url(campaign, request):
    return reverse("roll_answer", args=[campaign.pk, request.pk])


def _sheet(client, campaign, character):
    return client.get(reverse("character", args=[campaign.pk, character.pk])).content.decode()


def test_r34_r5_the_gm_asks_from_the_card_and_both_see_the_odds(
    campaign, pc, gm_client, player_client
):
    dashboard = gm_client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert f'href="{_ask_url(campaign, pc)}"' in dashboard
    panel = gm_client.get(_ask_url(campaign, pc), **HTMX)
    assert panel.status_code == 200
    assert reverse("roll_ask_probability", args=[campaign.pk, pc.pk]) in panel.content.decode()
    odds = gm_client.get(
        reverse("roll_ask_probability", args=[campaign.pk, pc.pk]),
        {"kind": "check", "stat": "ADR", "difficulty": "12", "modifier": "1"},
    )
    assert odds.content.decode() == "55 %"  # R5: d20 + 1 + 1 ≥ 12 on 10..20
    response = gm_client.post(
        _ask_url(campaign, pc),
        {"kind": "check", "stat": "ADR", "skill": "Crochetage", "difficulty": "12",
         "modifier": "1", "visibility": "everyone"},
        **on(reverse("campaign", args=[campaign.pk])),
    )  # fmt: skip
    assert response.status_code == 200
    html = response.content.decode()
    assert "Isaure · R34 · Crochetage (ADR, 12) demandé à paul_joueur par gaelle_mj (R5)" in html
    assert 'data-testid="undo"' not in html  # a request is cancelled, not undone
    request = RollRequest.objects.get(character=pc)
    # The card pushed with the answer shows the request waiting, and its odds.
    assert f'id="request-{request.pk}"' in html and "55 %" in html
    sheet = _sheet(player_client, campaign, pc)
    assert "gaelle_mj vous demande un jet" in sheet
    assert "Crochetage (ADR) · difficulté 12 · MJ +1" in sheet
    assert "(R5)" not in sheet.split('data-testid="feed"')[0]  # the GM's reference
    assert "55 %" in sheet
    assert _answer_url(campaign, request) in sheet
    assert reverse("roll_cancel", args=[campaign.pk, request.pk]) not in sheet  # the GM's


def test_r34_a_refused_request_says_why_in_the_panel(campaign, npc, pc, gm_client):
    response = gm_client.post(
        _ask_url(campaign, pc), {"kind": "check", "visibility": "everyone"}, **HTMX
    )
    assert response.status_code == 400
    assert "Choisissez la statistique du test (R5)." in response.content.decode()
    assert response.headers["HX-Retarget"] == f"#panel-{pc.pk}"
    response = gm_client.post(
        _ask_url(campaign, npc),
        {"kind": "check", "stat": "ADR", "difficulty": "10", "visibility": "everyone"},
        **HTMX,
    )
    assert response.status_code == 400
    assert "pas de joueur ou joueuse : lancez ce jet vous-même." in response.content.decode()
    assert not RollRequest.objects.exists()


def test_r34_r10_the_phone_types_a_die_refused_then_accepted(
    campaign, gm, pc, player, player_client, gm_client
):
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=True)
    gm_client.post(
        reverse("character_action", args=[campaign.pk, pc.pk, "damage"]),
        {"amount": "13", "visibility": "everyone"},
        **HTMX,
    )
    request = RollRequest.objects.get(character=pc, status="pending")
    assert request.rule_id == "R10"
    before = AuditEntry.objects.count()
    for typed, message in (
        (
            "25",
            "«\u00a025\u00a0» n’est pas un résultat de D20\u00a0: tapez un nombre entier "
            "de 1 à 20.",
        ),
        ("", "Tapez la valeur de votre dé (de 1 à 20), ou laissez le serveur lancer."),
        ("1,5", "«\u00a01,5\u00a0» n’est pas un résultat de D20"),
    ):
        refused = player_client.post(
            _answer_url(campaign, request), {"mode": "typed", "die": typed}, **HTMX
        )
        assert refused.status_code == 400
        assert message in refused.content.decode()
        assert refused.headers["HX-Retarget"] == f"#request-error-{request.pk}"
    assert AuditEntry.objects.count() == before
    answered = player_client.post(
        _answer_url(campaign, request),
        {"mode": "typed", "die": "14"},
        **on(reverse("character", args=[campaign.pk, pc.pk])),
    )
    assert answered.status_code == 200
    html = answered.content.decode()
    # The roll explained, and the card (out of band) with the borrowed time; no Undo.
    assert "Isaure — Survie (VAI)" in html and "14" in html and "R10 · " not in html
    # Said once, in the explanation: her card does not repeat the request she answered.
    assert "Jet demandé · Survie (VAI) à 0 PV\u00a0: lancé par paul_joueur" not in html
    assert 'data-testid="request-result"' not in html
    assert 'data-testid="undo"' not in html
    assert Character.objects.get(pk=pc.pk).vital == "borrowed_time"
    again = player_client.post(_answer_url(campaign, request), {"mode": "server"}, **HTMX)
    assert again.status_code == 400
    assert "Ce jet a déjà été lancé." in again.content.decode()


def test_r34_without_htmx_the_answer_redirects_and_a_refusal_is_a_page(
    campaign, gm, pc, player_client
):
    [request] = roll_request_create(character_id=pc.pk, actor=gm, stat="ADR").requests
    refused = player_client.post(_answer_url(campaign, request), {"mode": "typed", "die": "0"})
    assert refused.status_code == 400
    assert "n’est pas un résultat de D20" in refused.content.decode()
    done = player_client.post(_answer_url(campaign, request), {"mode": "server"})
    assert done.status_code == 302
    assert done.url == reverse("character", args=[campaign.pk, pc.pk])


def test_r34_the_gm_rolls_it_or_cancels_it_from_the_card(campaign, gm, pc, other_pc, gm_client):
    response = gm_client.post(
        reverse("party_ask", args=[campaign.pk]),
        {"characters": [pc.pk, other_pc.pk], "stat": "INS", "skill": "Perception",
         "difficulty": "10", "visibility": "everyone"},
        **HTMX,
    )  # fmt: skip
    assert response.status_code == 200
    first, second = RollRequest.objects.order_by("pk")
    rolled = gm_client.post(_answer_url(campaign, first), {"mode": "server"}, **HTMX)
    assert rolled.status_code == 200
    first.refresh_from_db()
    assert first.closed_by == gm and first.status == "answered"
    cancelled = gm_client.post(reverse("roll_cancel", args=[campaign.pk, second.pk]), {}, **HTMX)
    assert cancelled.status_code == 200
    assert "demande annulée par gaelle_mj" in cancelled.content.decode()
    dashboard = gm_client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert (
        "Jet demandé · Perception (INS) · difficulté 10 (R5)\u00a0: annulé par gaelle_mj"
        in dashboard
    )


def test_r34_the_settings_page_turns_the_players_rules_rolls_on(campaign, gm_client):
    response = gm_client.post(
        reverse("campaign_settings", args=[campaign.pk]),
        {**settings_data(campaign), "players_roll_rules": "on"},
    )
    assert response.status_code == 302
    assert Campaign.objects.get(pk=campaign.pk).players_roll_rules
    entry = AuditEntry.objects.filter(field="setting.players_roll_rules").get()
    assert entry.rule_id == "R34"


def test_r34_each_form_may_leave_its_rules_rolls_to_the_players(campaign, gm, pc, npc, gm_client):
    """The setting is off: the damage form, the clock's and the night's still choose."""
    damage = gm_client.get(reverse("character_action", args=[campaign.pk, pc.pk, "damage"]))
    assert 'name="ask_players"' in damage.content.decode()
    npc_damage = gm_client.get(reverse("character_action", args=[campaign.pk, npc.pk, "damage"]))
    assert 'name="ask_players"' not in npc_damage.content.decode()  # no player to ask
    # R11: in a coma at −1 PV; the GM's clock form says the players roll: it stops at 09:00.
    Character.objects.filter(pk=pc.pk).update(
        vital="coma",
        pv=-1,
        next_coma_hour=Campaign.objects.get(pk=campaign.pk).clock + timedelta(hours=1),
    )
    response = gm_client.post(
        reverse("party_action", args=[campaign.pk, "clock"]),
        {"minutes": "120", "ask_players": "players", "visibility": "everyone"},
    )
    assert response.status_code == 302
    request = RollRequest.objects.get(character=pc, status="pending")
    assert (request.rule_id, request.kind) == ("R11", "coma_hour")
    # R31: the night, the server chosen: nobody is asked (and the clock waits anyway).
    response = gm_client.post(
        reverse("party_action", args=[campaign.pk, "night"]),
        {"hours": "4", "ask_players": "server", "visibility": "everyone"},
    )
    assert response.status_code == 400
    assert "L’horloge attend le jet d’Isaure" in response.content.decode()


def test_r34_the_compact_row_says_a_roll_waits(campaign, gm, pc, gm_client):
    Membership.objects.filter(campaign=campaign, user=gm).update(dashboard_view="compact")
    roll_request_create(character_id=pc.pk, actor=gm, stat="ADR")
    page = gm_client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert 'data-testid="request-tag"' in page and "jet demandé à paul_joueur (R5)" in page


def test_r34_the_players_home_says_a_roll_waits(campaign, gm, pc, player_client):
    home = reverse("campaign", args=[campaign.pk])
    assert 'data-testid="request-waiting"' not in player_client.get(home).content.decode()
    roll_request_create(character_id=pc.pk, actor=gm, stat="ADR")
    page = player_client.get(home).content.decode()
    assert "Un jet vous est demandé\u00a0: ouvrez la fiche" in page
