"""Free rolls (R9): typed by the GM from the dashboard, or by a player for their own character
where the campaign lets players roll; logged with their visibility, refused with the grammar's
French message and nothing written."""

import pytest
from django.urls import reverse

from journal.models import AuditEntry


def _gm_roll(client, world, **data):
    url = reverse("party_action", args=[world.campaign.pk, "free_roll"])
    data.setdefault("visibility", "everyone")
    return client.post(url, data, HTTP_HX_REQUEST="true")


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("2d", "il manque le nombre de faces après « d »"),
        ("d0", "un dé a de 2 à 1000 faces (pas 0)"),
        ("1000d6", "au plus 100 dés en un jet (1000 demandés)"),
    ],
)
def test_r9_a_bad_expression_is_refused_with_its_message_and_nothing_written(
    gm_client, world, expression, message
):
    before = AuditEntry.objects.count()
    response = _gm_roll(gm_client, world, expression=expression)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert AuditEntry.objects.count() == before


def test_r9_the_gms_free_roll_with_typed_dice_is_logged(gm_client, world):
    response = _gm_roll(gm_client, world, expression="2d6+3", dice="4, 2")
    assert response.status_code == 200
    assert "jet libre 2d6+3 → 4 + 2 + 3 = 9 [dés saisis]" in response.content.decode()
    entry = AuditEntry.objects.latest("id")
    assert entry.action == "free_roll"
    assert entry.kind == "roll"
    assert entry.typed_in
    assert entry.visibility == "everyone"
    assert entry.roll["dice"] == [4, 2] and entry.roll["total"] == 9
    assert entry.text_fr == "R9 · Jet libre 2d6+3 → 4 + 2 + 3 = 9"


def test_r9_a_stat_needs_a_character_and_counts_its_value(gm_client, world):
    refused = _gm_roll(gm_client, world, expression="1d20+VAI")
    assert refused.status_code == 400
    assert "choisissez un personnage" in refused.content.decode()
    done = _gm_roll(gm_client, world, expression="1d20+VAI", character=world.pc.pk, dice="12")
    assert done.status_code == 200
    entry = AuditEntry.objects.latest("id")
    assert entry.character_id == world.pc.pk
    assert entry.roll["total"] == 12 + world.pc.stats["VAI"]


def test_r9_unused_typed_dice_are_refused(gm_client, world):
    before = AuditEntry.objects.count()
    response = _gm_roll(gm_client, world, expression="1d6", dice="3, 4")
    assert response.status_code == 400
    assert "n’ont pas servi" in response.content.decode()
    assert AuditEntry.objects.count() == before


def test_r9_a_gm_only_free_roll_is_sealed_for_the_player(gm_client, player_client, world):
    _gm_roll(
        gm_client, world, expression="1d20+7", character=world.pc.pk, dice="13", visibility="gm"
    )
    sheet = player_client.get(reverse("character", args=[world.campaign.pk, world.pc.pk]))
    html = sheet.content.decode()
    assert "jet scellé du MJ (jet libre)" in html
    assert "= 20" not in html
    history = player_client.get(reverse("history", args=[world.campaign.pk])).content.decode()
    assert "= 20" not in history
    gm_history = gm_client.get(reverse("history", args=[world.campaign.pk])).content.decode()
    assert "Jet libre 1d20+7 → 13 + 7 = 20" in gm_history


def test_r9_a_player_rolls_freely_for_their_own_character(player_client, world):
    url = reverse("character_free_roll", args=[world.campaign.pk, world.pc.pk])
    refused = player_client.post(url, {"expression": "2d"})
    assert refused.status_code == 400
    assert "il manque le nombre de faces" in refused.content.decode()
    response = player_client.post(url, {"expression": "1d8+1", "dice": "5"}, follow=True)
    assert "jet libre 1d8+1 → 5 + 1 = 6" in response.content.decode()
    entry = AuditEntry.objects.latest("id")
    assert (entry.action, entry.character_id, entry.actor_id) == (
        "free_roll",
        world.pc.pk,
        world.player.pk,
    )
    assert entry.visibility == world.campaign.default_roll_visibility


def test_r9_players_roll_freely_only_where_the_campaign_lets_them(
    player_client, other_player_client, world
):
    url = reverse("character_free_roll", args=[world.campaign.pk, world.pc.pk])
    # Someone else's character: never.
    assert other_player_client.post(url, {"expression": "1d6"}).status_code == 403
    world.campaign.players_roll = False
    world.campaign.save()
    assert player_client.post(url, {"expression": "1d6"}).status_code == 403
    sheet = player_client.get(reverse("character", args=[world.campaign.pk, world.pc.pk]))
    assert 'data-testid="free-roll-form"' not in sheet.content.decode()
