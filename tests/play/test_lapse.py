"""R34: a waiting rules roll the rules no longer call for lapses in the action that did it:
logged (naming R34 and its rule), the card drawn again, the stopped clock going on.

Isaure (the `pc` fixture, owned by `player`) has VAI 1, ADR 1, PA 2 and 11 PV.
"""

import pytest

from campaign.models import Campaign
from characters.models import Character
from journal.models import AuditEntry
from play import lapse, requests, services
from play.models import RequestStatus, RollRequest
from rules.engine import RuleError
from tests.play.play import at, put


def _rules_on(campaign, on=True):
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=on)


def _coma_stop(campaign, gm, pc):
    """The clock stopped at 09:00 for Isaure's R11 test (PV −2 after the hour's loss)."""
    _rules_on(campaign)
    put(pc, vital="coma", pv=-1, next_coma_hour=at(1))
    [request] = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=150).requests
    return request


def test_r34_r15_healed_above_0_the_r11_request_lapses_and_the_clock_goes_on(
    campaign, gm, player, pc
):
    request = _coma_stop(campaign, gm, pc)
    version = Character.objects.get(pk=pc.pk).version
    result = services.character_heal(character_id=pc.pk, actor=gm, amount=5)
    request.refresh_from_db()
    assert request.status == RequestStatus.LAPSED
    assert "R15" in request.result_fr
    pc.refresh_from_db()
    campaign.refresh_from_db()
    # −2 + 5 = 3: stabilised (R15); the clock went on from 09:00 towards 10:30.
    assert (pc.pv, pc.vital) == (3, "stabilised")
    assert campaign.clock == at(2)
    assert pc.version > version  # the card is drawn again: the request box leaves
    said = next(e for e in result.entries if e.field == "request")
    assert said.rule_id == "R34" and said.after["status"] == "lapsed"
    assert said.text_fr.startswith(
        "R34 · la demande de jet de Survie de l’heure de coma d’Isaure devient sans objet"
    )
    assert said.text_fr.endswith("(R11)")
    assert pc.pk in result.character_ids
    # Stabilised at 09:00, the player's waking try falls at 10:00: the clock stopped there.
    [again] = result.requests
    assert (again.kind, again.due_at) == ("wake_clock", at(2))
    # The lapsed request can no longer be answered, and says why.
    with pytest.raises(RuleError, match="n’est plus dû"):
        requests.roll_request_answer(request_id=request.pk, actor=player, dice=[10])


def test_r34_r10_healed_above_0_the_survie_request_lapses(campaign, gm, player, pc):
    _rules_on(campaign)
    [request] = services.character_damage(character_id=pc.pk, actor=gm, amount=13).requests
    services.character_heal(character_id=pc.pk, actor=gm, amount=3)
    request.refresh_from_db()
    assert request.status == RequestStatus.LAPSED and "R10" in request.result_fr
    # Nothing holds the clock any more.
    services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=10)
    campaign.refresh_from_db()
    assert campaign.clock == at(minutes=10)


def test_r34_r16_dead_the_request_lapses(campaign, gm, pc):
    _rules_on(campaign)
    [request] = services.character_damage(character_id=pc.pk, actor=gm, amount=13).requests
    services.character_fall(character_id=pc.pk, actor=gm, storeys=6)  # R27: death
    request.refresh_from_db()
    assert request.status == RequestStatus.LAPSED and "R16" in request.result_fr


def test_r34_r13_automatic_tries_turned_off_the_wake_request_lapses(campaign, gm, pc):
    _rules_on(campaign)
    put(pc, vital="stabilised", pv=-1, stabilised_at=at(0))
    [request] = services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=90).requests
    result = services.campaign_settings_update(
        campaign_id=campaign.pk, actor=gm, automatic_wake_tries=False
    )
    request.refresh_from_db()
    assert request.status == RequestStatus.LAPSED and "R13" in request.result_fr
    assert [e.field for e in result.entries][:2] == ["setting.automatic_wake_tries", "request"]
    campaign.refresh_from_db()
    assert campaign.clock == at(1.5)  # gone on from 09:00 to where it was going


def test_r34_a_request_left_waiting_from_before_lapses_when_answered(campaign, gm, player, pc):
    request = _coma_stop(campaign, gm, pc)
    # A state written before lapses existed: healed without the sweep.
    Character.objects.filter(pk=pc.pk).update(pv=4, vital="stabilised", next_coma_hour=None)
    result = requests.roll_request_answer(request_id=request.pk, actor=gm)
    request.refresh_from_db()
    assert request.status == RequestStatus.LAPSED
    assert any(e.field == "request" and e.after["status"] == "lapsed" for e in result.entries)
    campaign.refresh_from_db()
    assert campaign.clock == at(2.5)


def test_r34_with_the_setting_turned_off_the_gm_still_rolls_a_waiting_roll(campaign, gm, pc):
    request = _coma_stop(campaign, gm, pc)
    _rules_on(campaign, on=False)
    requests.roll_request_answer(request_id=request.pk, actor=gm, dice=[15])
    request.refresh_from_db()
    campaign.refresh_from_db()
    assert request.status == RequestStatus.ANSWERED and campaign.clock == at(2.5)
    assert not RollRequest.objects.filter(status=RequestStatus.PENDING).exists()


def test_r34_a_lapse_undoes_with_its_action_when_the_action_is_refused(campaign, gm, pc):
    request = _coma_stop(campaign, gm, pc)
    before = AuditEntry.objects.count()
    with pytest.raises(RuleError):
        services.character_heal(character_id=pc.pk, actor=gm, amount=-1)
    request.refresh_from_db()
    assert request.status == RequestStatus.PENDING and AuditEntry.objects.count() == before
    assert lapse.rules_rolls_wait(campaign)


def test_r34_the_card_and_the_phone_show_the_lapse(campaign, gm, pc, gm_client, player_client):
    from django.urls import reverse

    _rules_on(campaign)
    services.character_damage(character_id=pc.pk, actor=gm, amount=13)
    url = reverse("character", args=[campaign.pk, pc.pk])
    assert 'data-testid="request-die"' in player_client.get(url).content.decode()
    services.character_heal(character_id=pc.pk, actor=gm, amount=3)
    for client in (gm_client, player_client):
        page = client.get(url).content.decode()
        assert 'data-testid="request-die"' not in page  # the prompt is gone
        assert "devenu sans objet — PV au-dessus de 0 : agit normalement (R10)" in page
