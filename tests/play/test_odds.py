"""Every roll form's odds before rolling: the services weigh the very operation
they play (R5, R10, R12, R13, R27, R28), the routes answer a dash for a half-typed form, and
only the GM asks the odds of the GM's actions.
"""

import re
from fractions import Fraction

import pytest
from django.db import transaction
from django.urls import reverse

from characters.models import Character, Condition, Sequel
from play import parts, services
from play.services import runner
from rules.engine import NotStabilised
from tests.helpers import db_state


class FirstFace:
    """The D20 shows `face`; every later die shows 1 (a server roll, not typed in)."""

    typed_in = False

    def __init__(self, face):
        self.face, self.first = face, True

    def draw(self, sides):
        if self.first:
            self.first = False
            assert sides == 20
            return self.face
        return 1


def played_on_every_face(monkeypatch, world, service, **arguments) -> Fraction:
    """Play the service on each face of the D20, each time rolled back, and count the first
    test's successes."""
    wins = 0
    for face in range(1, 21):
        monkeypatch.setattr(runner, "dice_source", lambda typed, face=face: FirstFace(face))
        savepoint = transaction.savepoint_create()
        result = service(actor=world.gm, **arguments)
        transaction.savepoint_rollback(savepoint)
        wins += result.outcome.checks[0].success
    return Fraction(wins, 20)


def _put_in_coma(character, pv=-3):
    Character.objects.filter(pk=character.pk).update(pv=pv, vital="coma")


def _stabilise(character, world):
    Character.objects.filter(pk=character.pk).update(
        pv=-2, vital="stabilised", stabilised_at=world.campaign.clock
    )


# Isaure (pc): ADR 1, VAI 1, ESP 3, 11 PV, 2 PA. Gaspard (other_pc): ESP 0. The campaign's
# difficulty: 10.
SCENARIOS = {
    # R5: d20 + 1 + 2 (GM) >= 12 on 9..20.
    "check": (
        lambda w: None,
        {"stat": "VAI", "skill": "Survie", "difficulty": 12, "modifier": 2},
        Fraction(12, 20),
    ),
    # R10: 13 damage - 2 PA takes 11 PV to 0; Survie: d20 + 1 - 1 (R7) >= 10 on 10..20.
    "damage": (
        lambda w: Sequel.objects.create(character=w.pc, stat="ADR", cause="chute", d6=1),
        {"amount": 13, "ignores_pa": False, "cause": "griffes"},
        Fraction(11, 20),
    ),
    # R12: Gaspard, ESP 0, against 8: d20 >= 8 on 8..20.
    "stabilise": (
        lambda w: _put_in_coma(w.pc),
        {"healer_id": "other_pc", "healer_esp": None, "difficulty": 8},
        Fraction(13, 20),
    ),
    # R13: Survie, d20 + 1 >= 10, Exténué (R6): even faces of 9..20.
    "wake": (
        lambda w: (
            _stabilise(w.pc, w),
            Condition.objects.create(character=w.pc, kind="extenue", cause="gm"),
        ),
        {"sequel_cause": "une toux sanglante"},
        Fraction(6, 20),
    ),
    # R27: 3 storeys on rough ground count as 4: malus 6; d20 + 1 - 6 >= 10 on 15..20.
    "fall": (
        lambda w: None,
        {
            "storeys": 3,
            "in_motion": False,
            "surface": "rough",
            "soften": "adr_test",
            "cause": "",
        },
        Fraction(6, 20),
    ),
    # R28: Constitution, d20 + 1 - 2 (R8, sleep deprivation) >= 10 on 11..20.
    "fall_ill": (
        lambda w: Character.objects.filter(pk=w.pc.pk).update(sleep_deprived=True),
        {"severity": 2, "name": "fièvre des marais"},
        Fraction(10, 20),
    ),
}

SERVICE_FOR = {
    "check": services.character_check,
    "damage": services.character_damage,
    "stabilise": services.character_stabilise,
    "wake": services.character_wake,
    "fall": services.character_fall,
    "fall_ill": services.character_fall_ill,
}


def _arguments(world, arguments):
    return {k: getattr(world, v).pk if k == "healer_id" else v for k, v in arguments.items()}


def test_every_rolling_action_has_a_scenario_and_words_for_its_odds():
    assert set(SCENARIOS) == set(services.ROLLS) == set(parts.ODDS) == set(SERVICE_FOR)


@pytest.mark.parametrize("action", list(SCENARIOS))
def test_the_odds_are_those_of_the_roll_the_service_plays(world, monkeypatch, action):
    """R5, R10, R12, R13, R27, R28: the odds equal the share of D20 faces on which the
    service, played for real, passes its first test."""
    prepare, arguments, expected = SCENARIOS[action]
    prepare(world)
    arguments = _arguments(world, arguments)
    odds = services.action_odds(
        campaign=world.campaign, character_id=world.pc.pk, action=action, **arguments
    )
    assert odds.probability == expected
    before = db_state()
    assert (
        played_on_every_face(
            monkeypatch, world, SERVICE_FOR[action], character_id=world.pc.pk, **arguments
        )
        == expected
    )
    assert db_state() == before


def test_weighing_writes_nothing_and_locks_nothing(world, django_assert_max_num_queries):
    before = db_state()
    with django_assert_max_num_queries(5) as queries:
        services.action_odds(
            campaign=world.campaign,
            character_id=world.pc.pk,
            action="check",
            stat="VAI",
            difficulty=10,
        )
    assert not any("FOR UPDATE" in q["sql"] for q in queries.captured_queries)
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# The routes


def _url(world, action, character="pc"):
    return reverse(
        "action_probability", args=[world.campaign.pk, getattr(world, character).pk, action]
    )


QUERIES = {
    "check": {"stat": "VAI", "skill": "Survie", "difficulty": "12", "modifier": "2"},
    "damage": {"amount": "13", "cause": "griffes"},
    "stabilise": {"healer": "other_pc", "difficulty": "8"},
    "wake": {"sequel_cause": ""},
    "fall": {"storeys": "3", "surface": "rough", "soften": "adr_test"},
    "fall_ill": {"severity": "2", "name": ""},
}


@pytest.mark.parametrize("action", list(SCENARIOS))
def test_it_gives_the_gm_each_actions_odds_as_its_form_is_typed_in(gm_client, world, action):
    prepare, _, expected = SCENARIOS[action]
    prepare(world)
    query = {k: getattr(world, v).pk if k == "healer" else v for k, v in QUERIES[action].items()}
    # Who sees the roll and dice half-typed in change nothing.
    response = gm_client.get(_url(world, action), {**query, "visibility": "x", "dice": "3, "})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert response.content.decode() == f"{int(expected * 100)} %"


@pytest.mark.parametrize(
    ("action", "query", "hint"),
    [
        ("damage", {"amount": "1"}, "— (pas de test de Survie"),  # 11 - 0 (2 PA) stays above 0
        ("fall", {"storeys": "2", "surface": "normal", "soften": "spell"}, "— (pas de test"),
        ("fall", {"storeys": "1", "surface": "soft", "soften": "adr_test"}, "— (pas de test"),
    ],
)
def test_it_says_when_the_action_rolls_no_test(gm_client, world, action, query, hint):
    response = gm_client.get(_url(world, action), query)
    assert response.status_code == 200
    assert response.content.decode().startswith(hint)


@pytest.mark.parametrize(
    ("action", "query", "hint"),
    [
        ("damage", {"amount": ""}, r"^— \(Dégâts\s?: Ce champ est obligatoire\.\)$"),
        ("damage", {"amount": "-"}, r"^— \(Dégâts\s?: Saisissez un nombre entier\.\)$"),
        ("fall", {"storeys": "", "surface": "normal", "soften": "adr_test"}, r"^— \(.*étages"),
        ("fall", {"storeys": "2", "surface": "lava", "soften": "adr_test"}, r"^— \(Surface"),
        ("fall_ill", {"severity": "9"}, r"^— \(Gravité"),
        ("stabilise", {"healer": "", "difficulty": "10"}, r"^— \(Choisissez"),
        ("stabilise", {"healer": "99999", "difficulty": "1"}, r"^— \(Soigneur"),
        ("check", {"stat": "VAI", "difficulty": "1", "modifier": "-"}, r"^— \(Modificateur"),
    ],
)
def test_a_half_typed_form_answers_a_dash_and_what_is_missing(
    gm_client, world, action, query, hint
):
    response = gm_client.get(_url(world, action), query)
    assert response.status_code == 200
    assert re.match(hint, response.content.decode()), response.content.decode()


def test_an_action_the_rules_would_refuse_answers_a_dash_and_why(gm_client, world):
    """R13: Isaure is up, so no waking try: the refusal's own words, not an error."""
    response = gm_client.get(_url(world, "wake"), {"sequel_cause": ""})
    assert response.status_code == 200
    text = response.content.decode()
    assert text.startswith("— (") and "R13" in text
    with pytest.raises(NotStabilised):
        services.action_odds(campaign=world.campaign, character_id=world.pc.pk, action="wake")


def test_r16_a_dead_characters_odds_say_why_there_are_none(gm_client, world):
    Character.objects.filter(pk=world.pc.pk).update(pv=-20, vital="dead")
    response = gm_client.get(_url(world, "fall_ill"), {"severity": "1"})
    assert response.status_code == 200
    assert response.content.decode().startswith("— (Isaure est mort·e")


@pytest.mark.parametrize("action", ["heal", "end_coma", "explode"])
def test_an_action_that_rolls_no_test_has_no_odds_route(gm_client, world, action):
    assert gm_client.get(_url(world, action)).status_code == 404


def test_only_the_gm_asks_the_odds_of_the_gms_actions(
    player_client, outsider_client, anon_client, world
):
    url = _url(world, "fall_ill")
    query = {"severity": "1"}
    assert player_client.get(url, query).status_code == 403  # even on their own character
    assert outsider_client.get(url, query).status_code == 404
    assert anon_client.get(url, query).status_code == 302
    assert player_client.post(url, query).status_code == 405


def test_a_character_of_another_campaign_is_not_found(gm_client, world, outsider):
    from campaign.services import campaign_create

    foreign = campaign_create(user=outsider, name="Ailleurs")
    stranger = Character.objects.create(
        campaign=foreign, name="Inconnu", pv=5, pv_max=5, flux=0, flux_max=0
    )
    url = reverse("action_probability", args=[world.campaign.pk, stranger.pk, "fall_ill"])
    assert gm_client.get(url, {"severity": "1"}).status_code == 404


# ---------------------------------------------------------------------------------------------
# The panels


@pytest.mark.parametrize("action", list(SCENARIOS))
def test_each_roll_panel_previews_its_odds(gm_client, world, action):
    prepare, _, _ = SCENARIOS[action]
    prepare(world)
    url = reverse("character_action", args=[world.campaign.pk, world.pc.pk, action])
    response = gm_client.get(url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    content = response.content.decode()
    assert f'hx-get="{_url(world, action)}"' in content
    assert 'data-testid="probability"' in content
    assert str(parts.ODDS[action].label) in content


@pytest.mark.parametrize("action", ["heal", "add_condition", "remedy", "end_coma"])
def test_a_panel_without_a_test_has_no_odds(gm_client, world, action):
    url = reverse("character_action", args=[world.campaign.pk, world.pc.pk, action])
    response = gm_client.get(url, headers={"HX-Request": "true"})
    assert 'data-testid="probability"' not in response.content.decode()


def test_the_players_test_form_weighs_the_same_test(player_client, world):
    """The player's sheet asks `check_probability`, which weighs through the same service."""
    url = reverse("check_probability", args=[world.campaign.pk, world.pc.pk])
    response = player_client.get(url, {"stat": "VAI", "skill": "Survie", "difficulty": "12"})
    assert response.content.decode() == "50 %"  # d20 + 1 >= 12 on 11..20


MARKUP = '"><img src=x onerror=alert(1)>'


def test_the_odds_never_carry_markup_from_a_name_or_a_typed_value(gm_client, player_client, world):
    """htmx puts the odds into the form as HTML: a character's name in a refusal and a typed
    stat come escaped, on the GM's action and request forms and on the player's sheet."""
    Character.objects.filter(pk=world.pc.pk).update(name=MARKUP, vital="coma", pv=-1)
    campaign, pc = world.campaign, world.pc
    answers = [
        gm_client.get(
            reverse("action_probability", args=[campaign.pk, pc.pk, "check"]),
            {"stat": "ADR", "difficulty": "10"},
        ),
        gm_client.get(
            reverse("roll_ask_probability", args=[campaign.pk, pc.pk]),
            {"kind": "check", "stat": "ADR", "difficulty": "10"},
        ),
        player_client.get(
            reverse("check_probability", args=[campaign.pk, pc.pk]),
            {"stat": "<b>ADR</b>", "difficulty": "10"},
        ),
    ]
    for response in answers:
        text = response.content.decode()
        assert response.status_code == 200 and text.startswith("—"), text
        assert "<img" not in text and "<b>" not in text, text
    assert "&lt;img" in answers[0].content.decode()  # the name, refused in a coma, escaped
    assert "&lt;b&gt;" in answers[2].content.decode()  # the typed stat, escaped
