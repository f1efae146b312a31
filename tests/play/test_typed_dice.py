"""R9: physical dice typed in by a person. Characters that `str.isdigit()` takes for digits
but `int()` refuses (« ² », « ³ »), other scripts' digits and signs are refused with a
message and a 400 on every form that takes dice, and nothing is written.
"""

import pytest
from django.urls import reverse

from play import requests
from tests.helpers import character_data, db_state

pytestmark = pytest.mark.django_db

NOT_DICE = ["²", "1²", "٣", "+5", "1e3", "0"]
HTMX = {"HTTP_HX_REQUEST": "true"}


def _gm_forms(world):
    campaign, pc = world.campaign, world.pc
    action = lambda name: reverse("character_action", args=[campaign.pk, pc.pk, name])  # noqa: E731
    return {
        "check": (
            action("check"),
            {"stat": "ADR", "skill": "Saut", "difficulty": "10", "visibility": "everyone"},
        ),
        "damage": (action("damage"), {"amount": "3", "visibility": "everyone"}),
        # Set to 0 PV by hand, R10's Survie may be typed in.
        "edit": (
            reverse("character_edit", args=[campaign.pk, pc.pk]),
            character_data(campaign, name=pc.name, pv="0", visibility="everyone"),
        ),
    }


@pytest.mark.parametrize("htmx", [False, True], ids=["no-js", "htmx"])
@pytest.mark.parametrize("form", ["check", "damage", "edit"])
@pytest.mark.parametrize("typed", NOT_DICE)
def test_r9_the_gms_forms_refuse_what_is_not_a_die(gm_client, world, form, typed, htmx):
    url, data = _gm_forms(world)[form]
    before = db_state()
    response = gm_client.post(url, {**data, "dice": typed}, **(HTMX if htmx else {}))
    assert response.status_code == 400
    assert "n’est pas une valeur de dé" in response.content.decode()
    assert db_state() == before


@pytest.mark.parametrize("typed", NOT_DICE)
def test_r9_the_players_own_roll_refuses_what_is_not_a_die(player_client, world, typed):
    url = reverse("character_roll", args=[world.campaign.pk, world.pc.pk])
    before = db_state()
    data = {"stat": "ADR", "skill": "Saut", "difficulty": "10", "dice": typed}
    response = player_client.post(url, data)
    assert response.status_code == 400
    assert "n’est pas une valeur de dé" in response.content.decode()
    assert db_state() == before


@pytest.mark.parametrize("htmx", [False, True], ids=["no-js", "htmx"])
@pytest.mark.parametrize("typed", [*NOT_DICE, "21"])
def test_r34_r9_an_answer_refuses_what_is_not_a_d20_result(player_client, world, typed, htmx):
    [request] = requests.roll_request_create(
        character_id=world.pc.pk, actor=world.gm, stat="ADR", difficulty=10
    ).requests
    url = reverse("roll_answer", args=[world.campaign.pk, request.pk])
    before = db_state()
    response = player_client.post(url, {"die": typed}, **(HTMX if htmx else {}))
    assert response.status_code == 400
    assert "n’est pas un résultat de D20" in response.content.decode()
    assert db_state() == before
