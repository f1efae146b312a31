"""Campaign settings, invitations and members: happy paths, and bad input that changes nothing."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.models import Campaign, Invitation, Membership, Role
from tests.helpers import assert_form_error, db_state, settings_data


def test_it_renames_the_campaign_and_saves_the_ruleset(gm_client, campaign):
    url = reverse("campaign_settings", args=[campaign.pk])
    data = settings_data(
        campaign,
        name="La Tour de Sel, acte II",
        stats="adr, pui, ins, pre, vai, sav, esp, CHA",
        default_difficulty=12,
        natural_extremes="on",
        hour_rests_per_half_day=2,
        players_roll=False,
        default_roll_visibility="gm",
        party_visibility="bars",
        coma_delay_minutes=15,
        automatic_wake_tries=False,
        poor_night_is_proper="on",
        morning_hour=7,
        damage_ends_stabilisation=False,
        surprise_ends_after_first_round=False,
        round_seconds=6,
    )
    response = gm_client.post(url, data)
    assert response.status_code == 302
    assert response["Location"] == url
    campaign.refresh_from_db()
    assert campaign.name == "La Tour de Sel, acte II"
    assert campaign.stats == ["ADR", "PUI", "INS", "PRE", "VAI", "SAV", "ESP", "CHA"]
    assert campaign.default_difficulty == 12
    assert campaign.natural_extremes is True
    assert campaign.hour_rests_per_half_day == 2
    assert campaign.players_roll is False
    assert campaign.default_roll_visibility == "gm"
    assert campaign.party_visibility == "bars"
    assert (
        campaign.coma_delay_minutes,
        campaign.automatic_wake_tries,
        campaign.poor_night_is_proper,
        campaign.morning_hour,
        campaign.damage_ends_stabilisation,
        campaign.surprise_ends_after_first_round,
        campaign.round_seconds,
    ) == (15, False, True, 7, False, False, 6)
    # The confirmation is shown on the next page.
    assert len(list(gm_client.get(url).context["messages"])) == 1


BAD_SETTINGS = {
    "name too long": ("name", {"name": "x" * 500}),
    "name empty": ("name", {"name": ""}),
    "stat list missing ESP": ("stats", {"stats": "ADR, PUI, INS, PRE, VAI, SAV"}),
    "stat listed twice": ("stats", {"stats": "ADR, PUI, INS, PRE, VAI, SAV, ESP, ADR"}),
    "stat code not letters": ("stats", {"stats": "ADR, PUI, INS, PRE, VAI, SAV, ESP, C3"}),
    "difficulty not a number": ("default_difficulty", {"default_difficulty": "dix"}),
    "difficulty zero": ("default_difficulty", {"default_difficulty": "0"}),
    "difficulty too high": ("default_difficulty", {"default_difficulty": "61"}),
    "negative hour rests": ("hour_rests_per_half_day", {"hour_rests_per_half_day": "-1"}),
    "unknown visibility": ("default_roll_visibility", {"default_roll_visibility": "all"}),
    "no borrowed time": ("coma_delay_minutes", {"coma_delay_minutes": "0"}),
    "morning at 24:00": ("morning_hour", {"morning_hour": "24"}),
}


@pytest.mark.parametrize(("field", "overrides"), BAD_SETTINGS.values(), ids=BAD_SETTINGS)
def test_it_refuses_bad_settings_and_changes_nothing(gm_client, campaign, field, overrides):
    before = db_state()
    response = gm_client.post(
        reverse("campaign_settings", args=[campaign.pk]), settings_data(campaign, **overrides)
    )
    assert_form_error(response, field)
    assert db_state() == before


# Invitations.


def test_it_creates_an_invitation(gm_client, gm, campaign):
    response = gm_client.post(
        reverse("invitation_create", args=[campaign.pk]),
        {"role": "gm", "max_uses": "1", "valid_days": "3"},
    )
    invitation = Invitation.objects.get(campaign=campaign)
    assert response.status_code == 302
    members = reverse("members", args=[campaign.pk])
    assert response["Location"] == f"{members}#invitation-{invitation.pk}"
    assert (invitation.role, invitation.max_uses, invitation.uses) == (Role.GM, 1, 0)
    assert invitation.created_by == gm
    expected = timezone.now() + timedelta(days=3)
    assert abs(invitation.expires_at - expected) < timedelta(minutes=1)
    assert len(invitation.token) >= 32
    assert invitation.problem() is None


BAD_INVITATIONS = {
    "zero days": ("valid_days", {"valid_days": "0"}),
    "too many days": ("valid_days", {"valid_days": "91"}),
    "days not a number": ("valid_days", {"valid_days": "sept"}),
    "zero uses": ("max_uses", {"max_uses": "0"}),
    "uses not a number": ("max_uses", {"max_uses": "un"}),
    "unknown role": ("role", {"role": "king"}),
}


@pytest.mark.parametrize(("field", "overrides"), BAD_INVITATIONS.values(), ids=BAD_INVITATIONS)
def test_it_refuses_a_bad_invitation(gm_client, campaign, field, overrides):
    before = db_state()
    data = {"role": "player", "max_uses": "", "valid_days": "7", **overrides}
    response = gm_client.post(reverse("invitation_create", args=[campaign.pk]), data)
    assert_form_error(response, field, form_key="invite_form")
    assert db_state() == before


def test_it_revokes_an_invitation(gm_client, outsider_client, campaign, invitation):
    response = gm_client.post(reverse("invitation_revoke", args=[campaign.pk, invitation.pk]))
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    assert invitation.problem() is not None
    members_page = gm_client.get(reverse("members", args=[campaign.pk])).content.decode()
    assert invitation.token not in members_page
    response = outsider_client.post(reverse("join", args=[invitation.token]))
    assert response.status_code == 410


def test_it_counts_uses_of_a_multi_use_invitation(campaign, invitation, django_user_model):
    from django.test import Client

    for name in ("un", "deux", "trois"):
        client = Client()
        client.force_login(django_user_model.objects.create_user(name))
        assert client.post(reverse("join", args=[invitation.token])).status_code == 302
    invitation.refresh_from_db()
    assert invitation.uses == 3
    assert campaign.memberships.filter(role=Role.PLAYER).count() == 5


# Members.


def test_it_removes_a_member_whose_characters_lose_their_owner(
    gm_client, campaign, player, pc, other_pc
):
    membership = Membership.objects.get(campaign=campaign, user=player)
    response = gm_client.post(reverse("member_remove", args=[campaign.pk, membership.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("members", args=[campaign.pk])
    assert not Membership.objects.filter(pk=membership.pk).exists()
    pc.refresh_from_db()
    other_pc.refresh_from_db()
    assert pc.owner is None
    assert pc.campaign == campaign
    assert other_pc.owner is not None


def test_it_refuses_to_let_the_last_gm_leave(gm_client, gm, campaign, pc):
    before = db_state()
    response = gm_client.post(reverse("leave", args=[campaign.pk]))
    assert response.status_code == 409
    messages = [str(m) for m in response.context["messages"]]
    assert len(messages) == 1
    assert messages[0] in response.content.decode()
    assert db_state() == before


def test_it_refuses_to_let_the_last_gm_remove_themselves(gm_client, gm, campaign):
    own = Membership.objects.get(campaign=campaign, user=gm)
    before = db_state()
    response = gm_client.post(reverse("member_remove", args=[campaign.pk, own.pk]))
    assert response.status_code == 409
    assert db_state() == before


def test_it_lets_a_gm_leave_when_another_gm_remains(gm_client, gm, campaign, outsider):
    Membership.objects.create(campaign=campaign, user=outsider, role=Role.GM)
    response = gm_client.post(reverse("leave", args=[campaign.pk]))
    assert response.status_code == 302
    assert not Membership.objects.filter(campaign=campaign, user=gm).exists()
    assert Campaign.objects.filter(pk=campaign.pk).exists()
