"""The campaign's settings and the clock's order (docs/rules.md) as the GM's actions reach them:
the settings through the settings form, the clock through its actions, damage through the
dashboard.

The engine's tests (tests/rules/test_settings_and_clock.py) prove each rule; these prove that the
app's pages, forms and services carry it through to the rows and the log.
"""

from django.urls import reverse

from characters.models import Character
from characters.state import ruleset_for
from journal.models import AuditEntry
from tests.helpers import settings_data
from tests.play.steps import T0, at, put


def _settings(client, campaign, **changes):
    url = reverse("campaign_settings", args=[campaign.pk])
    response = client.post(url, settings_data(campaign, **changes))
    assert response.status_code == 302, response.content.decode()[:500]
    campaign.refresh_from_db()


def _party(client, campaign, action, **data):
    url = reverse("party_action", args=[campaign.pk, action])
    response = client.post(url, {"visibility": "everyone", **data})
    assert response.status_code == 302, response.content.decode()[:500]
    campaign.refresh_from_db()


def _damage(client, campaign, character, amount, dice=""):
    url = reverse("character_action", args=[campaign.pk, character.pk, "damage"])
    body = {"visibility": "everyone", "amount": amount, "ignores_pa": "on", "dice": dice}
    response = client.post(url, body)
    assert response.status_code == 302, response.content.decode()[:500]


def test_r13_r32_switching_the_tries_back_on_replays_no_hour_that_passed(gm_client, campaign, pc):
    put(pc, pv=1, vital="stabilised", stabilised_at=T0)
    _settings(gm_client, campaign, automatic_wake_tries=False)
    _party(gm_client, campaign, "clock", minutes=600)  # 08:00 -> 18:00, tries off
    _settings(gm_client, campaign, automatic_wake_tries="on")
    _party(gm_client, campaign, "clock", minutes=30)  # 18:00 -> 18:30

    pc = Character.objects.get(pk=pc.pk)
    assert campaign.clock == at(10, 30)
    assert (pc.vital, pc.last_wake_try) == ("stabilised", None)
    assert not AuditEntry.objects.filter(campaign=campaign, rule_id="R13", kind="roll").exists()
    # The next automatic try is one hour after the tries came back on, not 09:00.
    assert pc.wake_tries_from == at(10)


def test_r11_r12_a_stabilised_character_hurt_again_is_back_in_a_coma(gm_client, campaign, pc):
    put(pc, pv=0, vital="stabilised", stabilised_at=T0)
    _damage(gm_client, campaign, pc, 2)
    assert Character.objects.get(pk=pc.pk).vital == "coma"


def test_r11_r12_the_setting_keeps_a_stabilised_character_stabilised(gm_client, campaign, pc):
    _settings(gm_client, campaign, damage_ends_stabilisation=False)
    put(pc, pv=0, vital="stabilised", stabilised_at=T0)
    _damage(gm_client, campaign, pc, 2)
    pc = Character.objects.get(pk=pc.pk)
    assert (pc.vital, pc.pv) == ("stabilised", -2)


def test_r11_r12_the_settings_form_offers_the_setting_and_it_reaches_the_ruleset(
    gm_client, campaign
):
    page = gm_client.get(reverse("campaign_settings", args=[campaign.pk]))
    assert 'name="damage_ends_stabilisation"' in page.content.decode()
    assert ruleset_for(campaign).damage_ends_stabilisation is True  # the rules' default
    _settings(gm_client, campaign, damage_ends_stabilisation=False)
    assert ruleset_for(campaign).damage_ends_stabilisation is False


def test_r33_the_fight_settings_reach_the_ruleset(gm_client, campaign):
    assert (ruleset_for(campaign).surprise_ends_after_first_round, campaign.round_seconds) == (
        True,
        0,
    )
    _settings(gm_client, campaign, surprise_ends_after_first_round=False, round_seconds=6)
    ruleset = ruleset_for(campaign)
    assert (ruleset.surprise_ends_after_first_round, ruleset.round_seconds) == (False, 6)


def test_r18_an_hours_rest_moves_the_clock_one_hour_with_what_is_due(gm_client, campaign, pc):
    # On borrowed time until 08:10: the hour's rest brings the coma (R10) within its hour.
    put(pc, pv=-1, vital="borrowed_time", coma_due=at(minutes=10))
    _party(gm_client, campaign, "hour_rest", dice="3")
    campaign.refresh_from_db()
    assert campaign.clock == at(1)
    assert Character.objects.get(pk=pc.pk).vital == "coma"
    clock = AuditEntry.objects.get(campaign=campaign, field="clock")
    assert clock.after.startswith("2000-01-01T09:00")
