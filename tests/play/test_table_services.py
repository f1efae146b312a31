"""NPCs in numbers and out of play (play/services/table.py): copies numbered in one batch,
logged as creations; an NPC taken off the table and put back, logged, undoable."""

import pytest
from django.urls import reverse

from characters.models import Character, Kind
from journal.models import AuditEntry, EntryKind
from journal.texts import CREATED
from play import services
from play.services.table import (
    TableError,
    character_duplicate,
    character_in_play_set,
    numbered_names,
)
from play.services.undo import NotUndoable
from rules import engine


def test_numbered_names_number_the_original_and_go_on_after_the_highest():
    assert numbered_names("Garde", ["Garde", "Archer"], 3) == (
        "Garde 1",
        ["Garde 2", "Garde 3", "Garde 4"],
    )
    assert numbered_names("Garde 2", ["Garde 1", "Garde 2", "Garde 9", "Gardes 12"], 2) == (
        "Garde 2",
        ["Garde 10", "Garde 11"],
    )
    long = "x" * 80
    original, copies = numbered_names(long, [long], 12)
    assert all(len(name) <= 80 for name in [original, *copies])
    assert copies[-1].endswith(" 13")


def test_r1_r2_duplicate_copies_stats_and_maxima_at_full_pv_without_conditions(campaign, gm, npc):
    """R1/R2: each copy has the original's statistics and maxima, at full PV and Flux, with
    no condition, illness or player, whatever state the original is in."""
    services.character_damage(character_id=npc.pk, actor=gm, amount=5, ignores_pa=True)
    services.condition_add(character_id=npc.pk, actor=gm, kind="gene")
    result = character_duplicate(character_id=npc.pk, actor=gm, count=3)

    npc.refresh_from_db()
    assert npc.name == "Le Vicomte masque 1" and npc.pv == 7
    copies = list(Character.objects.filter(campaign=campaign).exclude(pk=npc.pk).filter(kind="npc"))
    assert [c.name for c in copies] == [f"Le Vicomte masque {n}" for n in (2, 3, 4)]
    for copy in copies:
        assert (copy.pv, copy.pv_max, copy.flux, copy.flux_max) == (12, 12, 4, 4)
        assert copy.stats == npc.stats and copy.pa == npc.pa and copy.kind == Kind.NPC
        assert copy.owner_id is None and copy.vital == "up" and copy.in_play
        assert not copy.conditions.exists() and not copy.sequels.exists()
    # One batch: the rename and the three creations (with their notes).
    batches = {e.batch for e in result.entries}
    assert len(batches) == 1
    created = [e for e in result.entries if e.field == CREATED]
    assert sorted(e.character_id for e in created) == sorted(c.pk for c in copies)
    assert created[0].actor_id == gm.pk
    assert any(e.field == "name" and e.character_id == npc.pk for e in result.entries)


def test_a_player_character_duplicated_keeps_its_name_and_player(campaign, gm, pc, player):
    character_duplicate(character_id=pc.pk, actor=gm, count=2)
    pc.refresh_from_db()
    assert pc.name == "Isaure" and pc.owner_id == player.pk
    copies = Character.objects.filter(campaign=campaign, name__in=["Isaure 2", "Isaure 3"])
    assert [c.owner_id for c in copies] == [None, None]


def test_a_duplication_is_not_undone_a_creation_never_is(campaign, gm, npc):
    result = character_duplicate(character_id=npc.pk, actor=gm, count=2)
    with pytest.raises(NotUndoable):
        services.entry_undo(
            campaign_id=campaign.pk, actor=gm, entry_id=result.entries[-1].pk, whole_action=True
        )
    assert Character.objects.filter(campaign=campaign, kind="npc").count() == 3


@pytest.mark.parametrize("count", [0, 21, -1])
def test_duplicate_refuses_a_count_out_of_range(campaign, gm, npc, count):
    before = AuditEntry.objects.count()
    with pytest.raises(TableError) as error:
        character_duplicate(character_id=npc.pk, actor=gm, count=count)
    assert "entre 1 et 20" in error.value.message_fr
    assert AuditEntry.objects.count() == before
    assert Character.objects.filter(campaign=campaign).count() == 1


def test_an_npc_off_the_table_is_logged_and_comes_back_and_undoes(campaign, gm, npc):
    result = character_in_play_set(character_id=npc.pk, actor=gm, in_play=False)
    npc.refresh_from_db()
    assert not npc.in_play
    (entry,) = result.entries
    assert (entry.field, entry.before, entry.after) == ("in_play", True, False)
    assert entry.text_fr == "Retiré de la table" and entry.kind == EntryKind.CHANGE

    with pytest.raises(TableError, match="déjà plus à la table"):
        character_in_play_set(character_id=npc.pk, actor=gm, in_play=False)

    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk)
    npc.refresh_from_db()
    assert npc.in_play

    character_in_play_set(character_id=npc.pk, actor=gm, in_play=False)
    back = character_in_play_set(character_id=npc.pk, actor=gm, in_play=True)
    npc.refresh_from_db()
    assert npc.in_play and back.entries[0].text_fr == "Remis en jeu"


def test_a_player_character_never_leaves_the_table(campaign, gm, pc):
    with pytest.raises(TableError, match="seuls les PNJ"):
        character_in_play_set(character_id=pc.pk, actor=gm, in_play=False)
    pc.refresh_from_db()
    assert pc.in_play


def test_r33_a_combatant_off_the_table_leaves_the_fight_in_the_same_action(campaign, gm, npc, pc):
    """R33: an NPC taken off the table mid-fight leaves the order in the same batch; the
    last combatant cannot leave (the fight ends instead)."""
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[npc.pk, pc.pk])
    result = character_in_play_set(character_id=npc.pk, actor=gm, in_play=False)
    campaign.refresh_from_db()
    assert campaign.fight["order"] == [str(pc.pk)]
    assert {e.field for e in result.entries} >= {"fight", "in_play"}
    assert len({e.batch for e in result.entries}) == 1
    character_in_play_set(character_id=npc.pk, actor=gm, in_play=True)
    services.fight_end(campaign_id=campaign.pk, actor=gm)
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[npc.pk])
    with pytest.raises(engine.RuleError, match="dernier du combat"):
        character_in_play_set(character_id=npc.pk, actor=gm, in_play=False)
    npc.refresh_from_db()
    assert npc.in_play


# ---------------------------------------------------------------------------------------------
# The GM's pages


def test_duplicate_page_makes_copies_and_refuses_bad_counts_in_french(
    campaign, gm_client, player_client, npc
):
    url = reverse("character_duplicate", args=[campaign.pk, npc.pk])
    assert player_client.post(url, {"count": "2"}).status_code == 403
    for bad, said in (("abc", "Tapez un nombre de copies"), ("50", "entre 1 et 20")):
        response = gm_client.post(url, {"count": bad})
        assert response.status_code == 400 and said in response.content.decode()
    assert Character.objects.filter(campaign=campaign).count() == 1
    response = gm_client.post(url, {"count": "5"}, follow=True)
    assert "5 copies ajoutées à la table" in response.content.decode()
    names = sorted(Character.objects.filter(campaign=campaign).values_list("name", flat=True))
    assert names == [f"Le Vicomte masque {n}" for n in range(1, 7)]
    response = gm_client.post(url, {"count": "1"}, follow=True)
    assert "1 copie ajoutée à la table" in response.content.decode()


def test_off_table_leaves_the_dashboard_and_comes_back(campaign, gm_client, npc, pc):
    dashboard = reverse("campaign", args=[campaign.pk])
    assert f'id="character-{npc.pk}"' in gm_client.get(dashboard).content.decode()
    url = reverse("character_in_play", args=[campaign.pk, npc.pk])
    response = gm_client.post(url, {"in_play": "0"}, follow=True)
    html = response.content.decode()
    assert "quitte la table" in html and f'id="character-{npc.pk}"' not in html
    assert f'id="character-{pc.pk}"' in html
    # The card the live stream or another tab gets is marked, so that its slot hides.
    card = gm_client.get(reverse("character_card", args=[campaign.pk, npc.pk])).content.decode()
    assert "<article data-off-table " in card
    listed = gm_client.get(reverse("off_table", args=[campaign.pk])).content.decode()
    assert npc.name in listed and "Remettre en jeu" in listed
    assert gm_client.post(url, {"in_play": "x"}).status_code == 400
    refused = gm_client.post(
        reverse("character_in_play", args=[campaign.pk, pc.pk]), {"in_play": "0"}, follow=True
    )
    assert "seuls les PNJ" in refused.content.decode()
    gm_client.post(url, {"in_play": "1"})
    assert f'id="character-{npc.pk}"' in gm_client.get(dashboard).content.decode()


def test_the_table_menu_is_in_the_cards_and_rows_more_actions(campaign, gm, gm_client, npc, pc):
    """Duplicate for every character, off the table for NPCs only: in the « Plus… » every card
    and compact row draws when the GM opens it (play/views.py character_menu)."""
    from campaign.models import Membership

    for view in ("cards", "compact"):
        Membership.objects.filter(campaign=campaign, user=gm).update(dashboard_view=view)
        html = gm_client.get(reverse("campaign", args=[campaign.pk])).content.decode()
        menus = {}
        for character in (npc, pc):
            url = reverse("character_menu", args=[campaign.pk, character.pk])
            shown = url + ("?view=compact" if view == "compact" else "")
            assert f'hx-get="{shown}"' in html, view
            menus[character] = gm_client.get(url).content.decode()
        assert all('data-testid="duplicate"' in menu for menu in menus.values())
        assert 'data-testid="off-table"' in menus[npc]
        assert 'data-testid="off-table"' not in menus[pc]
