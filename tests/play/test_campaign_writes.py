"""The campaign's settings and its members' leaving change the game: both are logged.

The settings are the rules' Choices, so each changed one gets an entry naming its rule; a
member who leaves or is removed leaves characters without a player, through character_update.
"""

from django.urls import reverse

from campaign.models import Campaign, Membership
from characters.models import Character
from journal.audit import verify_chain
from journal.models import AuditEntry
from play import services
from tests.helpers import settings_data


def setting_entries(campaign):
    return AuditEntry.objects.filter(campaign=campaign, action="campaign_settings_update")


def test_r11_r33_each_changed_setting_is_logged_with_its_rule(gm_client, campaign):
    url = reverse("campaign_settings", args=[campaign.pk])
    data = settings_data(campaign, damage_ends_stabilisation=False, round_seconds=6)
    response = gm_client.post(url, data)
    assert response.status_code == 302
    entries = {e.field: e for e in setting_entries(campaign)}
    assert set(entries) == {"setting.damage_ends_stabilisation", "setting.round_seconds"}
    stabilisation, rounds = (
        entries["setting.damage_ends_stabilisation"],
        entries["setting.round_seconds"],
    )
    assert (stabilisation.rule_id, stabilisation.before, stabilisation.after) == (
        "R11",
        True,
        False,
    )
    assert (rounds.rule_id, rounds.before, rounds.after) == ("R33", 0, 6)
    assert rounds.text_fr.startswith("R33 · Réglage ")
    assert rounds.text_fr.endswith(" : 0 → 6")
    assert stabilisation.text_en.endswith(": yes → no")
    assert stabilisation.visibility == "gm"
    assert verify_chain(Campaign.objects.get(pk=campaign.pk)) is None

    # The same form again changes nothing and writes nothing.
    gm_client.post(url, data)
    assert setting_entries(campaign).count() == 2


def test_r2_the_statistics_and_a_choice_say_their_values_in_words(gm, campaign):
    services.campaign_settings_update(
        campaign_id=campaign.pk,
        actor=gm,
        stats=[*campaign.stats, "CHA"],
        party_visibility="bars",
    )
    entries = {e.field: e for e in setting_entries(campaign)}
    assert entries["setting.stats"].rule_id == "R2"
    assert entries["setting.stats"].text_en.endswith(", ESP, CHA")
    assert entries["setting.party_visibility"].rule_id == ""
    assert entries["setting.party_visibility"].text_en == (
        "Setting “what players see of the rest of the party”: Names and vital state → "
        "Names, vital state, PV and Flux bars"
    )


def test_a_refused_setting_writes_nothing(gm_client, campaign):
    url = reverse("campaign_settings", args=[campaign.pk])
    response = gm_client.post(url, settings_data(campaign, round_seconds=9999))
    assert response.status_code == 400
    assert not setting_entries(campaign).exists()
    assert Campaign.objects.get(pk=campaign.pk).round_seconds == 0


def test_a_setting_entry_is_not_undone_from_the_history(gm, campaign):
    result = services.campaign_settings_update(campaign_id=campaign.pk, actor=gm, round_seconds=6)
    try:
        services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=result.entries[0].pk)
    except services.NotUndoable as error:
        assert "réglage" in str(error.args[0])
    else:
        raise AssertionError("a setting's entry was undone")
    assert Campaign.objects.get(pk=campaign.pk).round_seconds == 6


def test_a_removed_players_characters_lose_their_owner_on_the_log(gm_client, world):
    membership = world.player_membership
    url = reverse("member_remove", args=[world.campaign.pk, membership.pk])
    response = gm_client.post(url)
    assert response.status_code == 302
    assert not Membership.objects.filter(pk=membership.pk).exists()
    assert Character.objects.get(pk=world.pc.pk).owner_id is None
    entry = AuditEntry.objects.get(campaign=world.campaign, field="owner")
    assert (entry.character_id, entry.before, entry.after) == (world.pc.pk, world.player.pk, None)
    assert entry.actor_id == world.gm.pk


def test_the_last_gm_cannot_leave_and_nothing_is_written(gm_client, world):
    response = gm_client.post(reverse("leave", args=[world.campaign.pk]))
    assert response.status_code == 409
    assert Membership.objects.filter(pk=world.gm_membership.pk).exists()
    assert not AuditEntry.objects.filter(campaign=world.campaign).exists()


def role_entries(campaign):
    return AuditEntry.objects.filter(campaign=campaign, action="membership_role_set")


def test_the_gm_names_another_gm_then_may_leave(gm_client, world):
    url = reverse("member_role", args=[world.campaign.pk, world.player_membership.pk])
    response = gm_client.post(url, {"role": "gm"})
    assert response.status_code == 302
    assert Membership.objects.get(pk=world.player_membership.pk).role == "gm"
    entry = role_entries(world.campaign).get()
    assert (entry.before, entry.after, entry.actor_id) == ("player", "gm", world.gm.pk)
    assert entry.text_fr == f"{world.player.username} est maintenant meneur de jeu (avant : joueur)"
    assert entry.visibility == "everyone"
    assert verify_chain(Campaign.objects.get(pk=world.campaign.pk)) is None
    # The former only GM may now leave; the campaign keeps its new GM.
    assert gm_client.post(reverse("leave", args=[world.campaign.pk])).status_code == 302
    assert not Membership.objects.filter(pk=world.gm_membership.pk).exists()


def test_the_only_gm_cannot_be_made_a_player_and_nothing_is_written(gm_client, world):
    url = reverse("member_role", args=[world.campaign.pk, world.gm_membership.pk])
    response = gm_client.post(url, {"role": "player"})
    assert response.status_code == 400
    assert "nommez d’abord un autre MJ" in response.content.decode()
    assert Membership.objects.get(pk=world.gm_membership.pk).role == "gm"
    assert not role_entries(world.campaign).exists()


def test_a_role_that_is_not_one_is_refused_with_a_message(gm_client, world):
    url = reverse("member_role", args=[world.campaign.pk, world.player_membership.pk])
    response = gm_client.post(url, {"role": "admin"})
    assert response.status_code == 400
    assert "Choisissez un rôle" in response.content.decode()
    assert Membership.objects.get(pk=world.player_membership.pk).role == "player"
    assert not role_entries(world.campaign).exists()


def test_the_members_page_offers_the_gm_a_role_change(gm_client, player_client, world):
    url = reverse("members", args=[world.campaign.pk])
    role_url = reverse("member_role", args=[world.campaign.pk, world.player_membership.pk])
    assert role_url in gm_client.get(url).content.decode()
    assert "/role/" not in player_client.get(url).content.decode()
