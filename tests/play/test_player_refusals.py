"""A player reads a refusal without the rules' ids: « (R11) » is the GM's reference, which
the GM's pages and the history's details keep. A refused roll, a refused answer to a roll
asked for (R34), a refused proposal, each on its page and in its htmx fragment."""

import re

from django.urls import reverse

from journal.texts import rule_message
from play.requests import roll_request_create
from rules.engine import RuleError
from tests.play.steps import put

HTMX = {"HTTP_HX_REQUEST": "true"}
RULE_ID = re.compile(r"\(R\d+|R\d+\)|, R\d+")
ROLL = {"stat": "ADR", "skill": "Crochetage", "difficulty": "10", "dice": "14"}


def _no_rule_id(response, said):
    html = response.content.decode()
    assert response.status_code == 400
    assert said in html  # the refusal is there, only its rule id is not
    assert not RULE_ID.search(html), RULE_ID.search(html)


def test_r11_the_gm_reads_the_rule_id_a_player_does_not():
    error = RuleError("Isaure est dans le coma.", "Isaure is in a coma.", rule_id="R11")
    assert rule_message(error) == "Isaure est dans le coma. (R11)"
    assert rule_message(error, gm=False) == "Isaure est dans le coma."
    cited = RuleError("Pas de test (R13).", "No test (R13).", rule_id="R13")
    assert rule_message(cited, gm=False) == "Pas de test."


def test_r11_a_player_s_refused_roll_names_no_rule(player_client, world):
    put(world.pc, vital="coma", pv=-2)
    url = reverse("character_roll", args=[world.campaign.pk, world.pc.pk])
    _no_rule_id(player_client.post(url, ROLL), "coma")
    _no_rule_id(player_client.post(url, ROLL, **HTMX), "coma")


def test_r34_a_player_s_refused_answer_names_no_rule(player_client, gm, world):
    [request] = roll_request_create(character_id=world.pc.pk, actor=gm, stat="ADR").requests
    put(world.pc, vital="coma", pv=-2)
    url = reverse("roll_answer", args=[world.campaign.pk, request.pk])
    said = "Isaure est inconscient·e et ne peut pas agir."
    _no_rule_id(player_client.post(url, {"mode": "server"}), said)
    _no_rule_id(player_client.post(url, {"mode": "server"}, **HTMX), said)


def test_r1_a_player_s_refused_proposal_names_no_rule(player_client, world):
    put(world.pc, vital="dead", pv=-20)
    url = reverse("proposal_create", args=[world.campaign.pk, world.pc.pk])
    data = {"action": "spend_flux", "amount": "1"}
    _no_rule_id(player_client.post(url, data), "mort")
    _no_rule_id(player_client.post(url, data, **HTMX), "mort")
