"""The GM dashboard's actions over HTTP: who may, what a bad input gets, what htmx receives.

Every character action (`play.actions.ACTIONS`) and party action (`PARTY_ACTIONS`) has a
case below: the state that makes it possible, a valid body (with typed-in dice where it rolls,
R9) and what it must change. Outsiders get a 404, players a 403, and neither writes a thing.
"""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from characters.models import Character, Condition, Illness, Sequel
from journal.models import AuditEntry
from play.actions import ACTIONS, PARTY_ACTIONS
from play.cards import OOB_PLACEHOLDER, card_html
from tests.helpers import assert_form_error, db_state, first_template
from tests.play.steps import CASES, HTMX, T0, body, from_dashboard, prepared, put, run, url_for


def test_every_action_has_a_case():
    assert set(CASES) == set(ACTIONS) | set(PARTY_ACTIONS)
    assert {name for name, case in CASES.items() if case.party} == set(PARTY_ACTIONS)


# ---------------------------------------------------------------------------------------------
# The GM may; everybody else may not, and nothing is written


@pytest.mark.parametrize("name", CASES)
def test_it_shows_the_gm_every_action_form(gm_client, world, name):
    url = prepared(world, name)
    before = db_state()
    response = gm_client.get(url)
    assert response.status_code == 200
    assert "play/action_page.html" in [t.name for t in response.templates]
    assert f'action="{url}"' in response.content.decode()
    assert db_state() == before

    response = gm_client.get(url, **HTMX)
    assert response.status_code == 200
    assert first_template(response) == "play/action_page.html#action-form"
    assert "<html" not in response.content.decode()


@pytest.mark.parametrize("name", CASES)
def test_it_applies_every_action_for_the_gm_and_redirects_without_js(gm_client, world, name):
    url = prepared(world, name)
    response = gm_client.post(url, body(world, name))

    assert response.status_code == 302
    assert response["Location"] == reverse("campaign", args=[world.campaign.pk])
    assert CASES[name].changed(world) in (None, True)
    entries = list(AuditEntry.objects.order_by("id"))
    assert entries, "an action the GM applied wrote nothing"
    assert {(e.action, e.actor_id) for e in entries} == {(name, world.gm.pk)}

    page = gm_client.get(response["Location"])
    messages = [str(m) for m in page.context["messages"]]
    assert messages and all(re.match(r"R\d+ · ", m) for m in messages), messages


@pytest.mark.parametrize("name", CASES)
def test_it_answers_htmx_with_the_explanation_and_the_changed_cards(gm_client, world, name):
    url = prepared(world, name)
    response = gm_client.post(url, body(world, name), **from_dashboard(world))

    assert response.status_code == 200
    assert first_template(response) == "play/_action_result.html"
    content = response.content.decode()
    assert 'data-testid="explanation"' in content
    for line in response.context["explanation"]:
        assert f"<li>{escape(line)}</li>" in content
    assert response.context["explanation"], "no explanation"
    changed = {e.character_id for e in AuditEntry.objects.all()} - {None}
    for pk in changed:
        assert re.search(rf'id="character-{pk}"[^>]*hx-swap-oob="true"', content), pk
    assert {card.pk for card in response.context["changed_characters"]} == changed
    assert re.search(r'id="roll-log"[^>]*hx-swap-oob="true"', content)
    assert re.search(r'id="party-bar"[^>]*hx-swap-oob="true"', content)


def test_the_card_an_action_sends_is_cached_for_the_live_streams_push(gm_client, world):
    """The response's out-of-band card and the stream's card are one cached render."""
    url = f"/c/{world.campaign.pk}/characters/{world.pc.pk}/act/damage/"
    response = gm_client.post(
        url, {"amount": "5", "visibility": "everyone"}, **from_dashboard(world)
    )
    assert response.status_code == 200
    world.pc.refresh_from_db()
    membership = world.campaign.memberships.select_related("campaign").get(user=world.gm)
    with CaptureQueriesContext(connection) as queries:
        html = card_html(world.pc, campaign=membership.campaign, membership=membership)
    # A bare row: not cached, it would read conditions and sequels. The GM's card counts the
    # player's proposals waiting (read with the row by the views and the stream), here apart.
    assert [q["sql"].split(" FROM ")[1].split()[0] for q in queries] == ['"play_proposal"']
    assert f'data-version="{world.pc.version}"' in html
    assert "hx-swap-oob" not in html and OOB_PLACEHOLDER not in html
    assert re.search(
        rf'id="character-{world.pc.pk}"[^>]*hx-swap-oob="true"', response.content.decode()
    )


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(
    ("who", "status"),
    [("player_client", 403), ("other_player_client", 403), ("outsider_client", 404)],
)
def test_it_refuses_players_and_outsiders_and_writes_nothing(
    request, world, name, method, who, status
):
    client = request.getfixturevalue(who)
    url = prepared(world, name)
    before = db_state()
    response = client.get(url) if method == "get" else client.post(url, body(world, name), **HTMX)
    assert response.status_code == status
    assert world.pc.gm_notes not in response.content.decode()
    if status == 404:
        assert world.campaign.name not in response.content.decode()
    assert db_state() == before


@pytest.mark.parametrize("name", ["damage", "clock"])
def test_it_sends_anonymous_people_to_log_in(anon_client, world, name):
    url = prepared(world, name)
    before = db_state()
    response = anon_client.post(url, body(world, name))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert db_state() == before


def test_it_returns_404_for_a_character_of_another_campaign(gm_client, world, outsider):
    from campaign.services import campaign_create

    foreign = campaign_create(user=outsider, name="Ailleurs")
    stranger = Character.objects.create(
        campaign=foreign, name="Inconnu", pv=5, pv_max=5, flux=0, flux_max=0
    )
    before = db_state()
    url = reverse("character_action", args=[world.campaign.pk, stranger.pk, "damage"])
    assert gm_client.post(url, {"amount": "3", "visibility": "everyone"}).status_code == 404
    assert db_state() == before


@pytest.mark.parametrize("view", ["character_action", "party_action"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_it_returns_404_for_an_unknown_action(gm_client, world, view, method):
    args = [world.campaign.pk] + ([world.pc.pk] if view == "character_action" else [])
    url = reverse(view, args=[*args, "fireball"])
    before = db_state()
    response = getattr(gm_client, method)(url, {"visibility": "everyone", "amount": "3"})
    assert response.status_code == 404
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# Bad input: the form again, with the message, a 400, and nothing written

INVALID = [
    # (action, body overrides, the field whose message the page must show)
    ("damage", {"amount": "-3"}, "amount"),
    ("damage", {"amount": "beaucoup"}, "amount"),
    ("damage", {"amount": ""}, "amount"),
    ("heal", {"amount": "1000"}, "amount"),
    ("check", {"dice": "quatorze"}, "dice"),
    ("check", {"stat": "XYZ"}, "stat"),
    ("fall", {"storeys": "", "in_motion": ""}, "__all__"),
    ("stabilise", {"healer": "", "healer_esp": ""}, "__all__"),
    ("clock", {"minutes": ""}, "__all__"),
    ("night", {"hours": "0"}, "hours"),
    ("revive", {"pv": "20"}, "pv"),  # above Isaure's 14 max PV (R1): was a 500
]

REFUSED = [
    # (action, body overrides, the rule's message in French)
    ("check", {"dice": "25"}, "Un D20 ne peut pas donner 25 (de 1 à 20)."),
    ("spend_flux", {"amount": "8"}, "Isaure n’a que 7 Flux (il en faut 8)."),
    ("wake", {}, "Isaure n’est pas stabilisé·e : pas de test de réveil. (R13)"),
    ("remedy", {}, "Isaure n’est pas malade. (R29)"),
]


@pytest.mark.parametrize("htmx", [False, True], ids=["no-js", "htmx"])
@pytest.mark.parametrize(("name", "overrides", "field_name"), INVALID)
def test_it_rerenders_invalid_input_with_the_message(
    gm_client, world, name, overrides, field_name, htmx
):
    url = prepared(world, name)
    before = db_state()
    response = gm_client.post(url, body(world, name, **overrides), **(HTMX if htmx else {}))

    assert_form_error(response, field_name)
    assert db_state() == before
    if htmx:
        panel = "#panel-party" if CASES[name].party else f"#panel-{world.pc.pk}"
        assert response["HX-Retarget"] == panel
        assert response["HX-Reswap"] == "innerHTML"
        assert first_template(response) == "play/action_page.html#action-form"
    else:
        assert "play/action_page.html" in [t.name for t in response.templates]


@pytest.mark.parametrize("htmx", [False, True], ids=["no-js", "htmx"])
@pytest.mark.parametrize(("name", "overrides", "message"), REFUSED)
def test_it_shows_the_rules_refusal_in_the_form(gm_client, world, name, overrides, message, htmx):
    url = url_for(world, name)  # no set-up: the rules refuse
    before = db_state()
    response = gm_client.post(url, body(world, name, **overrides), **(HTMX if htmx else {}))

    assert response.status_code == 400
    assert response.context["form"].non_field_errors() == [message]
    assert escape(message) in response.content.decode()
    assert db_state() == before
    if htmx:
        assert response["HX-Retarget"] == f"#panel-{world.pc.pk}"


def test_it_shows_the_rules_refusal_in_english(gm_client, world):
    gm_client.cookies["django_language"] = "en"
    response = gm_client.post(url_for(world, "spend_flux"), body(world, "spend_flux", amount="8"))
    assert response.status_code == 400
    assert escape("Isaure has only 7 Flux (8 needed).") in response.content.decode()


def test_it_shows_a_party_refusal_in_the_party_panel(gm_client, world):
    before = db_state()
    response = gm_client.post(url_for(world, "share_hour_rest"), body(world, "share_hour_rest"))
    assert response.status_code == 400
    message = "Aucun repos d’une heure n’a été lancé."
    assert escape(message) in response.content.decode()
    assert db_state() == before

    response = gm_client.post(
        url_for(world, "share_hour_rest"), body(world, "share_hour_rest"), **HTMX
    )
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#panel-party"
    assert escape(message) in response.content.decode()


def test_it_refuses_typed_dice_it_did_not_use(gm_client, world):
    before = db_state()
    response = gm_client.post(url_for(world, "check"), body(world, "check", dice="14, 3, 5"))
    assert response.status_code == 400
    assert "n’ont pas servi : 3, 5" in response.content.decode()
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# The card and the odds


def test_it_renders_the_card_with_its_new_state(gm_client, world):
    run(
        world.campaign,
        world.gm,
        "damage",
        {"amount": "13", "ignores_pa": "on"},
        character=world.pc,
        typed=[15],
    )
    response = gm_client.get(reverse("character_card", args=[world.campaign.pk, world.pc.pk]))

    assert response.status_code == 200
    content = response.content.decode()
    assert '<span class="value" data-testid="pv">−2 / 14</span>' in content
    assert "en sursis (coma imminent)" in content
    assert "Exténué" in content
    assert 'class="card vital-borrowed_time is-down"' in content


@pytest.mark.parametrize(
    ("name", "data", "shown"),
    [
        ("add_condition", {"kind": "gene"}, "Gêné"),  # only a related row changes
        ("damage", {"amount": "5"}, "8 / 14"),
    ],
)
def test_the_dashboard_never_shows_a_card_older_than_the_last_action(
    gm_client, world, name, data, shown
):
    dashboard = reverse("campaign", args=[world.campaign.pk])
    card = reverse("character_card", args=[world.campaign.pk, world.pc.pk])
    assert shown not in gm_client.get(dashboard).content.decode()  # cards now cached
    assert shown not in gm_client.get(card).content.decode()

    response = gm_client.post(url_for(world, name), body(world, name, **data))
    assert response.status_code == 302

    assert shown in gm_client.get(dashboard).content.decode()
    assert shown in gm_client.get(card).content.decode()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # Gaspard: VAI 2; d20 + 2 ≥ 10 on 8 to 20: 13 faces of 20.
        ({"stat": "VAI", "difficulty": "10", "skill": "Survie"}, "65 %"),
        ({"stat": "VAI", "difficulty": "10", "skill": "Survie", "modifier": "-3"}, "50 %"),
        ({"stat": "VAI", "difficulty": "1"}, "100 %"),
        ({"stat": "VAI", "difficulty": "23"}, "0 %"),
    ],
)
def test_it_gives_the_exact_odds_before_rolling(gm_client, world, query, expected):
    url = reverse("check_probability", args=[world.campaign.pk, world.other_pc.pk])
    response = gm_client.get(url, query)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert response.content.decode() == expected


def test_r7_a_sequel_lowers_the_odds_of_survie_only(gm_client, world):
    Sequel.objects.create(character=world.other_pc, stat="ADR", cause="chute", d6=1)
    url = reverse("check_probability", args=[world.campaign.pk, world.other_pc.pk])
    survie = gm_client.get(url, {"stat": "VAI", "difficulty": "10", "skill": "Survie"})
    other = gm_client.get(url, {"stat": "VAI", "difficulty": "10", "skill": "Volonté"})
    assert (survie.content.decode(), other.content.decode()) == ("60 %", "65 %")


@pytest.mark.parametrize(
    ("query", "hint"),
    [
        # " ?:": the French catalogue may not have the sentence's own spacing yet.
        (
            {"stat": "VAI", "difficulty": "dix"},
            r"— \(Difficulté\s?: Saisissez un nombre entier\.\)$",
        ),
        ({"stat": "VAI", "difficulty": ""}, r"— \(Difficulté\s?: Ce champ est obligatoire\.\)$"),
        ({"stat": "VAI", "difficulty": "1", "modifier": "-"}, r"— \(Modificateur du MJ\s?: "),
    ],
)
def test_it_answers_a_dash_and_what_is_missing_for_a_half_typed_test(gm_client, world, query, hint):
    """Being typed in is not an error: a 200, so that neither htmx nor the browser report a
    failure at every keystroke."""
    url = reverse("check_probability", args=[world.campaign.pk, world.other_pc.pk])
    response = gm_client.get(url, query)
    assert response.status_code == 200
    assert re.match(hint, response.content.decode()), response.content.decode()


def test_the_odds_ignore_the_dice_being_typed_in(gm_client, world):
    url = reverse("check_probability", args=[world.campaign.pk, world.other_pc.pk])
    query = {"stat": "VAI", "difficulty": "10", "skill": "Survie", "visibility": "x"}
    for dice in ("", "1", "abc", "3, "):
        response = gm_client.get(url, {**query, "dice": dice})
        assert (response.status_code, response.content.decode()) == (200, "65 %"), dice


# ---------------------------------------------------------------------------------------------
# The dashboard's query count does not grow with the party


def _populate(campaign, first, count):
    for i in range(first, first + count):
        character = Character.objects.create(
            campaign=campaign,
            name=f"Perso {i:02d}",
            stats={code: 1 for code in campaign.stats},
            pv=10,
            pv_max=12,
            flux=3,
            flux_max=6,
        )
        Condition.objects.create(character=character, kind="gene", cause="gm", started_at=T0)
        Condition.objects.create(character=character, kind="ebranle", cause="gm", started_at=T0)
        Sequel.objects.create(character=character, stat="PUI", cause="chute", d6=2, gained_at=T0)
        Illness.objects.create(character=character, severity=2, days_left=3, started_at=T0)


def _dashboard_queries(client, campaign, characters) -> tuple[int, int]:
    """Queries of the GM dashboard with no card cached, then with every card cached."""
    url = reverse("campaign", args=[campaign.pk])
    client.get(url)  # warm: the session, translations, template loading
    counts = []
    for cached in (False, True):
        if not cached:
            cache.clear()
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200
        content = response.content.decode()
        assert len(re.findall(r'<article class="card[ "]', content)) == characters
        assert content.count("Gêné") >= characters  # the cards show their conditions
        assert len(response.context["log_entries"]) == 20  # the log panel is full
        counts.append(len(queries))
    return tuple(counts)


def test_the_dashboard_renders_in_the_same_number_of_queries_for_3_and_30_characters(
    gm, gm_client, campaign
):
    _populate(campaign, 0, 3)
    for _ in range(10):  # some history for the log panel, 2 entries each
        run(
            campaign,
            gm,
            "check",
            {"stat": "VAI", "difficulty": "10"},
            character=Character.objects.first(),
            typed=[9],
        )
        run(campaign, gm, "heal", {"amount": "1"}, character=Character.objects.first())
        put(Character.objects.first(), pv=10)
    three = _dashboard_queries(gm_client, campaign, 3)

    _populate(campaign, 3, 27)
    thirty = _dashboard_queries(gm_client, campaign, 30)

    print(f"dashboard queries (cold, cached): 3 characters {three}, 30 characters {thirty}")
    assert thirty == three
    # 11: the log panel's undone marks (journal/standing.py) read the campaign's undos once.
    assert max(thirty) <= 11, thirty


def test_r26_remove_a_condition_offers_only_those_the_character_has_with_their_causes(
    gm_client, world
):
    put(world.pc, conditions=[("gene", "gm"), ("extenue", "flux")])
    page = gm_client.get(url_for(world, "remove_condition")).content.decode()
    start = page.index('<select name="kind"')
    form = page[start : page.index("</select>", start)]
    assert 'value="gene"' in form and 'value="extenue"' in form
    assert 'value="paralyse"' not in form and 'value="surpris"' not in form
    assert "(Flux à 0)</option>" in form and "(MJ)</option>" in form
    # One the character does not have is refused by the form, nothing written.
    before = db_state()
    response = gm_client.post(
        url_for(world, "remove_condition"), body(world, "remove_condition", kind="paralyse")
    )
    assert response.status_code == 400 and db_state() == before


def test_r13_a_waking_try_with_physical_dice_asks_for_the_d6_once_the_d20_made_it_due(
    gm_client, world
):
    put(world.pc, pv=-2, vital="stabilised", stabilised_at=T0)
    before = db_state()
    # The D20 alone, as the table throws it: a success wants the sequel's D6 next.
    response = gm_client.post(url_for(world, "wake"), body(world, "wake", dice="15"), **HTMX)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Les règles demandent maintenant un D6" in page
    assert 'value="15"' in page  # what was thrown stays in the field
    assert "Il manque une valeur de dé" not in page
    assert db_state() == before
    response = gm_client.post(url_for(world, "wake"), body(world, "wake", dice="15, 2"), **HTMX)
    assert response.status_code == 200
    assert Character.objects.get(pk=world.pc.pk).vital == "up"


def test_r13_a_failed_waking_try_takes_the_d20_alone(gm_client, world):
    put(world.pc, pv=-2, vital="stabilised", stabilised_at=T0)
    response = gm_client.post(url_for(world, "wake"), body(world, "wake", dice="1"), **HTMX)
    assert response.status_code == 200
    assert Character.objects.get(pk=world.pc.pk).vital == "stabilised"
    assert AuditEntry.objects.filter(campaign=world.campaign, kind="roll").count() == 1
