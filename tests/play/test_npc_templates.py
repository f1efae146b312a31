"""NPC templates per campaign (issue 25, item 2): a stat block saved once from an NPC
(« Enregistrer comme modèle »), listed for the GM, spawned in numbers through the same creation
as duplication (play/services/table.py), each copy logged as a creation. Who may use each URL
at all is tests/test_permissions.py's table; here: what it does, and refusals in French."""

import pytest
from django.urls import reverse

from characters.models import Character, NpcTemplate
from journal.models import AuditEntry
from play.services.table import (
    TableError,
    npc_template_delete,
    npc_template_save,
    npc_template_spawn,
)
from tests.helpers import db_state


@pytest.fixture
def guard(campaign, npc):
    Character.objects.filter(pk=npc.pk).update(name="Garde 3", pv=2, pa=1)
    npc.refresh_from_db()
    return npc


def test_a_template_keeps_the_npcs_block_under_its_name_without_a_number(campaign, gm, guard):
    template = npc_template_save(character_id=guard.pk, actor=gm)
    assert template.name == "Garde" and template.campaign_id == campaign.pk
    for field in ("stats", "pv_max", "flux_max", "pa", "actions", "reflexes", "gm_notes"):
        assert getattr(template, field) == getattr(guard, field), field
    entry = AuditEntry.objects.filter(campaign=campaign, action="npc_template").get()
    assert entry.visibility == "gm"
    assert entry.text_fr.startswith("Modèle de PNJ enregistré : Garde (d’après Garde 3 ; PV max")
    # Saved again after the sheet changed: the block is replaced, not doubled.
    Character.objects.filter(pk=guard.pk).update(pa=3)
    again = npc_template_save(character_id=guard.pk, actor=gm)
    assert again.pk == template.pk and again.pa == 3
    assert NpcTemplate.objects.filter(campaign=campaign).count() == 1
    assert "mis à jour" in AuditEntry.objects.filter(action="npc_template").latest("id").text_fr


def test_a_template_spawns_numbered_npcs_at_full_pv_logged_as_creations(campaign, gm, guard):
    template = npc_template_save(character_id=guard.pk, actor=gm)
    result = npc_template_spawn(template_id=template.pk, actor=gm, count=3)
    # « Garde 3 » is taken: the new ones go on after it.
    spawned = Character.objects.filter(
        campaign=campaign, name__in=["Garde 4", "Garde 5", "Garde 6"]
    )
    assert spawned.count() == 3
    for row in spawned:
        assert (row.kind, row.owner_id) == ("npc", None)
        assert (row.pv, row.pv_max, row.flux, row.flux_max) == (
            guard.pv_max,
            guard.pv_max,
            guard.flux_max,
            guard.flux_max,
        )
        assert (row.stats, row.pa) == (guard.stats, guard.pa)
    created = [e for e in result.entries if e.field == "character"]
    assert len(created) == 3 and {e.action for e in created} == {"npc_template_spawn"}
    assert Character.objects.get(pk=guard.pk).name == "Garde 3"  # the source is not renamed


def test_a_template_of_a_new_name_starts_at_1(campaign, gm, npc):
    template = NpcTemplate.objects.create(
        campaign=campaign, name="Archer", stats=npc.stats, pv_max=9, flux_max=0
    )
    npc_template_spawn(template_id=template.pk, actor=gm, count=2)
    names = set(Character.objects.filter(campaign=campaign).values_list("name", flat=True))
    assert {"Archer 1", "Archer 2"} <= names


@pytest.mark.parametrize("count", [0, 21, -1])
def test_spawning_refuses_a_count_out_of_range(campaign, gm, guard, count):
    template = npc_template_save(character_id=guard.pk, actor=gm)
    before = db_state()
    with pytest.raises(TableError) as refused:
        npc_template_spawn(template_id=template.pk, actor=gm, count=count)
    assert refused.value.message_fr == "Choisissez entre 1 et 20 copies."
    assert db_state() == before


def test_the_gm_saves_from_the_menu_sees_the_list_and_spawns(campaign, gm_client, guard):
    dashboard = gm_client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert "Enregistrer comme modèle" in dashboard
    off_table = gm_client.get(reverse("off_table", args=[campaign.pk])).content.decode()
    assert reverse("npc_templates", args=[campaign.pk]) in off_table
    response = gm_client.post(reverse("npc_template_save", args=[campaign.pk, guard.pk]))
    assert response.status_code == 302
    page = gm_client.get(response["Location"]).content.decode()
    assert "Modèle « Garde » enregistré" in page
    assert 'data-testid="npc-template"' in page and "PV max 12" in page
    template = NpcTemplate.objects.get(campaign=campaign)
    url = reverse("npc_template_spawn", args=[campaign.pk, template.pk])
    response = gm_client.post(url, {"count": "2"})
    assert response.status_code == 302 and response["Location"] == reverse(
        "campaign", args=[campaign.pk]
    )
    assert Character.objects.filter(campaign=campaign, name__startswith="Garde ").count() == 3


@pytest.mark.parametrize(
    ("count", "message"),
    [
        ("", "Tapez un nombre de copies, de 1 à 20."),
        ("beaucoup", "Tapez un nombre de copies, de 1 à 20."),
        ("50", "Choisissez entre 1 et 20 copies."),
    ],
)
def test_a_bad_count_is_a_400_with_a_french_message(campaign, gm, gm_client, guard, count, message):
    template = npc_template_save(character_id=guard.pk, actor=gm)
    before = db_state()
    url = reverse("npc_template_spawn", args=[campaign.pk, template.pk])
    response = gm_client.post(url, {"count": count})
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html and 'data-testid="spawn-error"' in html
    assert db_state() == before


def test_a_players_character_is_no_template_and_another_campaigns_is_a_404(
    campaign, gm, gm_client, pc, guard
):
    from campaign import services as campaign_services

    before = db_state()
    response = gm_client.post(reverse("npc_template_save", args=[campaign.pk, pc.pk]))
    assert response.status_code == 400
    assert "Seul le profil d’un PNJ" in response.content.decode()
    assert db_state() == before
    other = campaign_services.campaign_create(user=gm, name="Les Marches")
    stranger = NpcTemplate.objects.create(campaign=other, name="Ombre", pv_max=5, flux_max=1)
    url = reverse("npc_template_spawn", args=[campaign.pk, stranger.pk])
    assert gm_client.post(url, {"count": "1"}).status_code == 404


def test_players_cannot_save_list_or_spawn(campaign, gm, player_client, guard):
    template = npc_template_save(character_id=guard.pk, actor=gm)
    before = db_state()
    assert player_client.get(reverse("npc_templates", args=[campaign.pk])).status_code == 403
    save = reverse("npc_template_save", args=[campaign.pk, guard.pk])
    assert player_client.post(save).status_code == 403
    spawn = reverse("npc_template_spawn", args=[campaign.pk, template.pk])
    assert player_client.post(spawn, {"count": "1"}).status_code == 403
    assert db_state() == before


def test_a_deleted_template_is_gone_and_its_npcs_stay(
    campaign, gm, gm_client, player_client, guard
):
    template = npc_template_save(character_id=guard.pk, actor=gm)
    npc_template_spawn(template_id=template.pk, actor=gm, count=2)
    url = reverse("npc_template_delete", args=[campaign.pk, template.pk])
    assert player_client.post(url).status_code == 403
    response = gm_client.post(url)
    assert response.status_code == 302
    assert "Modèle « Garde » supprimé." in gm_client.get(response["Location"]).content.decode()
    assert not NpcTemplate.objects.filter(pk=template.pk).exists()
    assert Character.objects.filter(campaign=campaign, name__in=["Garde 4", "Garde 5"]).count() == 2
    entry = AuditEntry.objects.filter(campaign=campaign, action="npc_template").latest("id")
    assert (entry.text_fr, entry.visibility) == ("Modèle de PNJ supprimé : Garde", "gm")
    assert gm_client.post(url).status_code == 404
    with pytest.raises(NpcTemplate.DoesNotExist):
        npc_template_delete(template_id=template.pk, actor=gm)
