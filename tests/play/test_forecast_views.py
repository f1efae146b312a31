"""The clock's forecast in the GM's forms (R32 with R11, R13, R31): the route answers the
engine's exact figures for what the form says, escaped, a line for a half-typed or refused
form, and only to the GM."""

from datetime import timedelta
from fractions import Fraction

from django.urls import reverse
from django.utils.html import escape

from characters import state as rows_state
from characters.models import Character
from play.services import clock_forecast
from play.services.runner import locked_rows
from rules import engine


def _in_coma(character, campaign, pv=-3, **changes):
    Character.objects.filter(pk=character.pk).update(
        pv=pv,
        vital="coma",
        next_coma_hour=campaign.clock + timedelta(minutes=30),
        **changes,
    )


def _url(campaign, action):
    return reverse("party_forecast", args=[campaign.pk, action])


def test_r11_r32_clock_forecast_is_the_engines_exact_figure(gm_client, world):
    """Isaure (VAI 1) in a coma at −3 PV: two hours ask two Survie tests; the line is the
    engine's, computed here on the same rows without the route."""
    _in_coma(world.pc, world.campaign)
    response = gm_client.get(_url(world.campaign, "clock"), {"minutes": "120"})
    assert response.status_code == 200
    rows = locked_rows(world.campaign, lock=False)
    state = rows_state.campaign_state(world.campaign, rows.values())
    (expected,) = engine.forecast_clock(
        state, minutes=120, ruleset=rows_state.ruleset_for(world.campaign)
    )
    # By hand: Survie d20 + 1 (VAI) ≥ 10 on 9..20, twice.
    assert expected.death == 1 - Fraction(12, 20) ** 2
    html = response.content.decode()
    assert "Isaure (coma, VAI 1) : 2 tests de Survie, risque de mort 64 %" in html
    assert f'data-death="{engine.percent_text(expected.death)}"' in html


def test_r32_the_forecast_follows_the_length_typed_in(gm_client, world):
    _in_coma(world.pc, world.campaign)
    one = gm_client.get(_url(world.campaign, "clock"), {"minutes": "60"}).content.decode()
    assert "1 test de Survie, risque de mort 40 %" in one
    morning = gm_client.get(_url(world.campaign, "clock"), {"to_morning": "on"})
    (weighed,) = clock_forecast(campaign=world.campaign, action="clock", to_morning=True)
    assert escape(weighed.fr) in morning.content.decode()


def test_r32_nobody_at_risk_says_so(gm_client, world):
    response = gm_client.get(_url(world.campaign, "clock"), {"minutes": "600"})
    assert "Aucun jet à prévoir d’ici là." in response.content.decode()


def test_r31_r11_night_and_hour_rest_forecasts(gm_client, world):
    _in_coma(world.pc, world.campaign)
    night = gm_client.get(_url(world.campaign, "night"), {"hours": "4"}).content.decode()
    assert "Isaure (coma, VAI 1) : 4 tests de Survie" in night
    assert "test de Volonté, risque d’être Exténué·e" in night  # the sleepers' short night
    rest = gm_client.get(_url(world.campaign, "hour_rest"), {}).content.decode()
    assert "Isaure (coma, VAI 1) : 1 test de Survie, risque de mort 40 %" in rest


def test_half_typed_or_refused_forms_answer_a_line_not_an_error(gm_client, world):
    response = gm_client.get(_url(world.campaign, "clock"), {"minutes": "0"})
    assert response.status_code == 200
    assert 'data-testid="forecast-hint"' in response.content.decode()
    world.campaign.hour_rests_used = 9
    world.campaign.save()
    refused = gm_client.get(_url(world.campaign, "hour_rest"), {})
    assert refused.status_code == 200
    assert "repos d’une heure" in refused.content.decode()


def test_names_are_escaped_in_the_forecast(gm_client, world):
    _in_coma(world.pc, world.campaign, name="<b>Isaure</b>")
    html = gm_client.get(_url(world.campaign, "clock"), {"minutes": "60"}).content.decode()
    assert "&lt;b&gt;Isaure&lt;/b&gt;" in html
    assert "<b>Isaure" not in html


def test_only_the_gm_sees_the_forecast(player_client, gm_client, world):
    assert player_client.get(_url(world.campaign, "clock"), {"minutes": "60"}).status_code == 403
    assert gm_client.get(_url(world.campaign, "share_hour_rest"), {}).status_code == 404


def test_the_clock_night_and_rest_forms_ask_for_their_forecast(gm_client, world):
    for action in ("clock", "night", "hour_rest"):
        form = gm_client.get(reverse("party_action", args=[world.campaign.pk, action]))
        assert f'hx-get="{_url(world.campaign, action)}"' in form.content.decode()
    scene = gm_client.get(reverse("party_action", args=[world.campaign.pk, "end_scene"]))
    assert 'data-testid="forecast"' not in scene.content.decode()


def test_r11_the_quick_clock_buttons_ask_first_only_when_someone_may_die(gm_client, world):
    dashboard = reverse("campaign", args=[world.campaign.pk])
    calm = gm_client.get(dashboard).content.decode()
    assert "data-confirm=" not in calm.split('id="party-bar"')[1].split("</section>")[0]
    _in_coma(world.pc, world.campaign)
    bar = gm_client.get(dashboard).content.decode().split('id="party-bar"')[1]
    bar = bar.split("</section>")[0]
    # +10 min reaches no coma hour (the first is at half past): it asks nothing.
    assert bar.count("data-confirm=") == 2
    assert (
        'value="60" class="secondary" data-confirm="Isaure (coma, VAI 1) : 1 test de Survie, '
        "risque de mort 40 %\nAvancer l’horloge quand même ?"
    ) in bar


def test_r11_the_party_bar_drawn_alone_asks_too(gm_client, world):
    """Refetched alone (live updates) the bar reads who is at risk itself."""
    _in_coma(world.pc, world.campaign)
    bar = gm_client.get(
        reverse("campaign", args=[world.campaign.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="party-bar",
    ).content.decode()
    assert bar.count("data-confirm=") == 2


def _answer_bar(gm_client, world, character, name, data) -> str:
    dashboard = reverse("campaign", args=[world.campaign.pk])
    answer = gm_client.post(
        reverse("character_action", args=[world.campaign.pk, character.pk, name]),
        {"visibility": "everyone", **data},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=f"http://testserver{dashboard}",
    )
    assert answer.status_code == 200
    return answer.content.decode().split('id="party-bar"')[1].split("</section>")[0]


def test_r11_an_actions_answer_redraws_the_bar_asking_when_another_may_die(gm_client, world):
    """The answer knows who is at risk from the action's own read (play/services/runner.py):
    another character in a coma makes the bar ask, as the dashboard's does."""
    assert "data-confirm=" not in _answer_bar(gm_client, world, world.npc, "heal", {"amount": 1})
    _in_coma(world.pc, world.campaign)
    bar = _answer_bar(gm_client, world, world.npc, "damage", {"amount": "1"})
    assert bar.count("data-confirm=") == 2


def test_r11_an_actions_answer_asks_when_the_acted_character_may_die(gm_client, world):
    """The character acted on is read by the action itself: in a coma, the bar asks."""
    _in_coma(world.pc, world.campaign)
    bar = _answer_bar(gm_client, world, world.pc, "spend_flux", {"amount": "1"})
    assert bar.count("data-confirm=") == 2
