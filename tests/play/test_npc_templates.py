"""NPC templates per campaign: a stat block saved once from an NPC
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
    numbered_names,
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
    menu = gm_client.get(reverse("character_menu", args=[campaign.pk, guard.pk])).content.decode()
    assert "Enregistrer comme modèle" in menu  # the card's « Plus… »
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


def test_spawning_garde_beside_a_garde_alone_numbers_after_it_without_renaming_it(
    campaign, gm, npc
):
    # « Garde » on the table (never duplicated): it counts as « Garde 1 », as an original does;
    # « garde 3 » (another case) takes the 3. The one on the table keeps its name.
    Character.objects.filter(pk=npc.pk).update(name="Garde")
    template = NpcTemplate.objects.create(
        campaign=campaign, name="Garde", stats=npc.stats, pv_max=9, flux_max=0
    )
    npc_template_spawn(template_id=template.pk, actor=gm, count=2)
    names = list(Character.objects.filter(campaign=campaign).values_list("name", flat=True))
    assert {"Garde", "Garde 2", "Garde 3"} <= set(names) and "Garde 1" not in names
    Character.objects.filter(campaign=campaign, name="Garde 3").update(name="garde 3")
    npc_template_spawn(template_id=template.pk, actor=gm, count=1)
    assert Character.objects.filter(campaign=campaign, name="Garde 4").exists()
    assert Character.objects.get(pk=npc.pk).name == "Garde"


def test_numbered_names_count_a_name_alone_as_its_1():
    assert numbered_names("Garde 0", ["Garde", "Archer"], 2) == ("Garde 0", ["Garde 2", "Garde 3"])
    assert numbered_names("Garde", ["Garde", "GARDE 5"], 1) == ("Garde 1", ["Garde 6"])
    assert numbered_names("Archer", ["Garde"], 1) == ("Archer 1", ["Archer 2"])


def blank(campaign, **changes):
    data = {
        "name": "Archer",
        "pv_max": "9",
        "flux_max": "2",
        "pa": "1",
        "actions": "2",
        "reflexes": "1",
        "gm_notes": "Vise les mages.",
        **{f"stat_{code}": "1" for code in campaign.stats},
    }
    return {**data, **changes}


def test_the_gm_types_a_template_from_a_blank_form_and_spawns_it(campaign, gm, gm_client):
    url = reverse("npc_template_create", args=[campaign.pk])
    page = gm_client.get(reverse("npc_templates", args=[campaign.pk])).content.decode()
    assert 'data-testid="npc-template-new"' in page and f'action="{url}"' in page
    response = gm_client.post(url, blank(campaign, stat_ADR="3"), follow=True)
    assert response.status_code == 200
    assert "Modèle « Archer » enregistré" in response.content.decode()
    template = NpcTemplate.objects.get(campaign=campaign, name="Archer")
    assert (template.pv_max, template.flux_max, template.pa, template.gm_notes) == (
        9,
        2,
        1,
        "Vise les mages.",
    )
    assert template.stats == {code: 3 if code == "ADR" else 1 for code in campaign.stats}
    entry = AuditEntry.objects.filter(campaign=campaign, action="npc_template").latest("id")
    assert entry.visibility == "gm"
    assert entry.text_fr == "Modèle de PNJ créé : Archer (PV max 9, Flux max 2, PA 1)"
    npc_template_spawn(template_id=template.pk, actor=gm, count=2)
    spawned = Character.objects.filter(campaign=campaign, name__in=["Archer 1", "Archer 2"])
    assert spawned.count() == 2


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "archer"}, "Un modèle « Archer » existe déjà : supprimez-le d’abord"),
        ({"pv_max": "0"}, "supérieure ou égale à 1"),
        ({"name": ""}, "Ce champ est obligatoire."),
        ({"stat_ADR": "x"}, "Saisissez un nombre entier."),
    ],
)
def test_a_blank_template_refused_is_a_400_in_french_and_nothing_written(
    campaign, gm, gm_client, changes, message
):
    NpcTemplate.objects.create(campaign=campaign, name="Archer", stats={}, pv_max=5, flux_max=0)
    url = reverse("npc_template_create", args=[campaign.pk])
    before = db_state()
    response = gm_client.post(url, blank(campaign, **changes))
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    assert 'data-testid="npc-template-new" open' in html
    assert db_state() == before
