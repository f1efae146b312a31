"""The URLs outside any one campaign: home, creating a campaign, joining through a link.

Who may use each of them at all is tests/test_permissions.py's table.
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaign.models import Campaign, Invitation, Membership, Role
from tests.helpers import assert_form_error, db_state


def test_it_welcomes_anonymous_visitors_on_home(anon_client, campaign):
    response = anon_client.get(reverse("home"))
    assert response.status_code == 200
    assert "campaign/welcome.html" in [t.name for t in response.templates]
    content = response.content.decode()
    assert reverse("login") in content
    assert campaign.name not in content


def test_it_lists_only_your_own_campaigns_on_home(outsider_client, player_client, campaign):
    response = outsider_client.get(reverse("home"))
    assert response.status_code == 200
    assert list(response.context["memberships"]) == []
    assert campaign.name not in response.content.decode()

    response = player_client.get(reverse("home"))
    assert [m.campaign for m in response.context["memberships"]] == [campaign]
    assert reverse("campaign", args=[campaign.pk]) in response.content.decode()


def test_it_shows_the_gm_their_role_on_home(gm_client, campaign):
    response = gm_client.get(reverse("home"))
    assert [m.role for m in response.context["memberships"]] == [Role.GM]
    assert str(Role.GM.label) in response.content.decode()


def test_it_creates_a_campaign_whose_creator_is_gm(outsider_client, outsider):
    response = outsider_client.post(reverse("campaign_create"), {"name": "Les Marais"})
    campaign = Campaign.objects.get(name="Les Marais")
    assert response.status_code == 302
    assert response["Location"] == reverse("members", args=[campaign.pk])
    membership = Membership.objects.get(campaign=campaign)
    assert (membership.user, membership.role) == (outsider, Role.GM)
    assert campaign.stats == ["ADR", "PUI", "INS", "PRE", "VAI", "SAV", "ESP"]
    assert campaign.default_difficulty == 10


@pytest.mark.parametrize("name", ["", "x" * 500])
def test_it_refuses_a_bad_campaign_name(gm_client, campaign, name):
    before = db_state()
    response = gm_client.post(reverse("campaign_create"), {"name": name})
    assert_form_error(response, "name")
    assert db_state() == before


# Joining through a link.


def test_it_asks_anonymous_to_log_in_to_join(anon_client, invitation):
    url = reverse("join", args=[invitation.token])
    before = db_state()
    response = anon_client.get(url)
    assert response.status_code == 200
    assert f"{reverse('login')}?next={url}" in response.content.decode()
    assert invitation.campaign.name in response.content.decode()
    response = anon_client.post(url)
    assert response.status_code == 200
    assert db_state() == before


def test_it_returns_404_for_an_unknown_link(outsider_client, anon_client, db):
    for client in (outsider_client, anon_client):
        response = client.get(reverse("join", args=["no-such-token"]))
        assert response.status_code == 404
        assert response.context["problem"]


def test_it_lets_an_outsider_join_as_the_invitations_role(outsider_client, outsider, invitation):
    url = reverse("join", args=[invitation.token])
    response = outsider_client.get(url)
    assert response.status_code == 200
    assert 'method="post"' in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()

    response = outsider_client.post(url)
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign", args=[invitation.campaign_id])
    membership = Membership.objects.get(user=outsider, campaign=invitation.campaign)
    assert membership.role == Role.PLAYER
    invitation.refresh_from_db()
    assert invitation.uses == 1


def test_it_joins_as_gm_through_a_gm_invitation(outsider_client, outsider, campaign, gm):
    invitation = Invitation.objects.create(campaign=campaign, role=Role.GM, created_by=gm)
    outsider_client.post(reverse("join", args=[invitation.token]))
    assert Membership.objects.get(user=outsider, campaign=campaign).role == Role.GM


@pytest.mark.parametrize("who", ["player_client", "gm_client"])
def test_it_keeps_a_members_role_when_they_open_the_link_again(request, invitation, who):
    client = request.getfixturevalue(who)
    before = db_state()
    response = client.post(reverse("join", args=[invitation.token]))
    assert response.status_code == 302
    assert db_state() == before


def _expired(invitation):
    invitation.expires_at = timezone.now() - timedelta(minutes=1)
    invitation.save()


def _revoked(invitation):
    invitation.revoked_at = timezone.now()
    invitation.save()


@pytest.mark.parametrize("spoil", [_expired, _revoked], ids=["expired", "revoked"])
def test_it_refuses_a_dead_invitation(outsider_client, outsider, invitation, spoil):
    spoil(invitation)
    url = reverse("join", args=[invitation.token])
    before = db_state()
    for response in (outsider_client.get(url), outsider_client.post(url)):
        assert response.status_code == 410
        problem = str(response.context["problem"])
        assert problem
        assert problem in response.content.decode()
        assert 'method="post"' not in response.content.decode().split("<main")[1]
    assert db_state() == before
    assert not Membership.objects.filter(user=outsider).exists()


def test_it_refuses_a_single_use_invitation_used_twice(
    outsider_client, outsider, campaign, gm, django_user_model
):
    invitation = Invitation.objects.create(campaign=campaign, created_by=gm, max_uses=1)
    url = reverse("join", args=[invitation.token])
    assert outsider_client.post(url).status_code == 302
    assert Membership.objects.filter(user=outsider, campaign=campaign).exists()

    latecomer = django_user_model.objects.create_user("retardataire")
    outsider_client.force_login(latecomer)
    before = db_state()
    response = outsider_client.post(url)
    assert response.status_code == 410
    assert str(response.context["problem"]) in response.content.decode()
    assert db_state() == before
    invitation.refresh_from_db()
    assert invitation.uses == 1
