"""The GM's undo: new entries that put back what a change replaced (docs/architecture.md, "Undo").

History is never rewritten: an undo is a change entry whose `reverts` names the entry it
undoes, and it can itself be undone. When later entries make the revert incoherent (the value
has moved on, the character has died since), nothing is written until the GM chooses.
"""

import pytest
from django.urls import reverse

from characters.models import Character
from characters.state import campaign_state
from journal.models import AuditEntry, EntryKind
from play import services
from tests.helpers import db_state
from tests.play.steps import run


def snapshot(campaign):
    """The whole engine state of the campaign, read back from its rows."""
    campaign.refresh_from_db()
    rows = (
        Character.objects.filter(campaign=campaign)
        .select_related("illness")
        .prefetch_related("conditions", "sequels")
        .order_by("pk")
    )
    return campaign_state(campaign, rows)


def change_entries(result, field=None):
    return [e for e in result.entries if e.kind == EntryKind.CHANGE and field in (None, e.field)]


def test_r1_undoing_damage_restores_the_pv_as_a_new_entry(campaign, gm, pc):
    before = snapshot(campaign)
    result = run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    (entry,) = change_entries(result, "pv")
    assert (entry.before, entry.after) == (11, 8)  # 5 − 2 PA (R3)

    undo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk)

    assert snapshot(campaign) == before
    (written,) = undo.entries
    assert written.reverts_id == entry.pk
    assert (written.field, written.before, written.after) == ("pv", 8, 11)
    assert written.action == "undo" and written.actor_id == gm.pk
    assert written.text_en.startswith(f"Undo of #{entry.pk} · R3")
    assert AuditEntry.objects.filter(pk=entry.pk).exists()  # the original stays


def test_r10_undoing_the_whole_action_reverts_every_change_in_reverse_order(campaign, gm, pc):
    before = snapshot(campaign)
    # 14 damage − 2 PA: PV 11 → −1; the Survie test (R10) fails on a typed-in 1: coma.
    result = run(campaign, gm, "damage", {"amount": "14"}, character=pc, typed=[1])
    changes = change_entries(result)
    assert {e.field for e in changes} >= {"pv", "vital"}
    rolls_before = AuditEntry.objects.filter(kind=EntryKind.ROLL).count()

    undo = services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=changes[0].pk, whole_action=True
    )

    assert snapshot(campaign) == before
    assert [e.reverts_id for e in undo.entries] == [e.pk for e in reversed(changes)]
    # Rolls stay in the history; only their consequences were undone.
    assert AuditEntry.objects.filter(kind=EntryKind.ROLL).count() == rolls_before


def test_undoing_an_undo_brings_the_change_back(campaign, gm, pc):
    result = run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    after_damage = snapshot(campaign)
    (entry,) = change_entries(result, "pv")
    undo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk)

    redo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=undo.entries[0].pk)

    assert snapshot(campaign) == after_damage
    assert redo.entries[0].reverts_id == undo.entries[0].pk
    assert (redo.entries[0].before, redo.entries[0].after) == (11, 8)


def test_r32_undoing_a_clock_move_puts_the_clock_back(campaign, gm, pc):
    before = snapshot(campaign)
    result = run(campaign, gm, "clock", {"minutes": "60"})
    (entry,) = change_entries(result, "clock")
    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk)
    assert snapshot(campaign).clock == before.clock


def test_r26_undoing_a_condition_removes_it_again(campaign, gm, pc):
    before = snapshot(campaign)
    result = run(campaign, gm, "add_condition", {"kind": "gene"}, character=pc)
    (entry,) = change_entries(result, "conditions")
    assert snapshot(campaign) != before
    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk)
    assert snapshot(campaign) == before


def test_it_explains_a_value_that_has_moved_on_and_writes_nothing(campaign, gm, pc):
    damage = run(campaign, gm, "damage", {"amount": "5"}, character=pc)  # PV 11 → 8
    run(campaign, gm, "heal", {"amount": "2"}, character=pc)  # PV 8 → 10
    (entry,) = change_entries(damage, "pv")
    before = db_state()

    with pytest.raises(services.UndoConflict) as conflict:
        services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk)

    assert db_state() == before
    (problem,) = conflict.value.problems
    assert "PV is now 10, no longer 8" in problem.en
    assert "set it back to 11" in problem.en
    assert "PV vaut maintenant 10" in problem.fr


def test_the_gm_may_revert_anyway_to_the_old_value(campaign, gm, pc):
    damage = run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    run(campaign, gm, "heal", {"amount": "2"}, character=pc)
    (entry,) = change_entries(damage, "pv")

    undo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk, force=True)

    assert Character.objects.get(pk=pc.pk).pv == 11
    assert (undo.entries[0].before, undo.entries[0].after) == (10, 11)


def test_r16_it_explains_that_the_character_died_since(campaign, gm, pc):
    flux = run(campaign, gm, "spend_flux", {"amount": "2"}, character=pc)  # Flux 7 → 5
    run(campaign, gm, "fall", {"storeys": "6", "surface": "normal", "soften": "none"}, character=pc)
    assert Character.objects.get(pk=pc.pk).vital == "dead"
    (entry,) = change_entries(flux, "flux")
    before = db_state()

    with pytest.raises(services.UndoConflict) as conflict:
        services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk)

    assert db_state() == before
    assert "Isaure has died since" in conflict.value.problems[0].en
    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=entry.pk, force=True)
    pc = Character.objects.get(pk=pc.pk)
    assert (pc.flux, pc.vital) == (7, "dead")  # the old value back; death is the GM's (R16)


def test_it_refuses_to_undo_a_roll(campaign, gm, pc):
    result = run(campaign, gm, "check", {"stat": "ADR", "difficulty": "10"}, character=pc)
    (roll,) = result.entries
    before = db_state()
    with pytest.raises(services.NothingToUndo):
        services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=roll.pk)
    assert db_state() == before


# Over HTTP: the GM's button, the conflict page with both choices, the refusals. That only the
# GM may undo at all is tests/test_permissions.py's table.


def _undo_url(campaign, entry, whole=False):
    return reverse("action_undo" if whole else "entry_undo", args=[campaign.pk, entry.pk])


def test_it_undoes_from_the_history_and_shows_the_new_entry(gm_client, campaign, gm, pc):
    (entry,) = change_entries(run(campaign, gm, "damage", {"amount": "5"}, character=pc), "pv")
    response = gm_client.post(_undo_url(campaign, entry))
    assert response.status_code == 302
    undo = AuditEntry.objects.get(reverts=entry)
    assert response["Location"].endswith(f"#entry-{undo.pk}")
    page = gm_client.get(reverse("history", args=[campaign.pk])).content.decode()
    assert f'id="entry-{undo.pk}"' in page
    assert f"undoes #{entry.pk}" in page or f"défait #{entry.pk}" in page


def test_it_shows_the_conflict_and_both_choices_then_reverts_anyway(gm_client, campaign, gm, pc):
    (entry,) = change_entries(run(campaign, gm, "damage", {"amount": "5"}, character=pc), "pv")
    run(campaign, gm, "heal", {"amount": "2"}, character=pc)
    before = db_state()

    response = gm_client.post(_undo_url(campaign, entry), HTTP_ACCEPT_LANGUAGE="en")

    assert response.status_code == 409
    assert db_state() == before
    content = response.content.decode()
    assert "PV vaut maintenant 10" in content or "PV is now 10" in content
    assert 'name="force" value="1"' in content  # revert anyway
    assert reverse("history", args=[campaign.pk]) in content  # cancel
    response = gm_client.post(_undo_url(campaign, entry), {"force": "1"})
    assert response.status_code == 302
    assert Character.objects.get(pk=pc.pk).pv == 11


def test_it_undoes_a_whole_action_over_http(gm_client, campaign, gm, pc):
    before = snapshot(campaign)
    result = run(campaign, gm, "damage", {"amount": "14"}, character=pc, typed=[1])
    entry = change_entries(result)[-1]
    response = gm_client.post(_undo_url(campaign, entry, whole=True))
    assert response.status_code == 302
    assert snapshot(campaign) == before


def test_it_answers_a_roll_undo_with_a_message_and_a_400(gm_client, campaign, gm, pc):
    (roll,) = run(campaign, gm, "check", {"stat": "ADR", "difficulty": "10"}, character=pc).entries
    before = db_state()
    response = gm_client.post(_undo_url(campaign, roll))
    assert response.status_code == 400
    assert "jet reste dans l’historique" in response.content.decode().replace("&#x27;", "'")
    assert db_state() == before


def test_the_gm_cannot_undo_an_entry_of_another_campaign(gm_client, campaign, outsider, gm, pc):
    from campaign.services import campaign_create
    from tests.conftest import _stats

    foreign = campaign_create(user=outsider, name="Ailleurs")
    stranger = Character.objects.create(
        campaign=foreign, name="X", stats=_stats(foreign, 1), pv=5, pv_max=5, flux=1, flux_max=1
    )
    (entry,) = change_entries(
        run(foreign, outsider, "damage", {"amount": "1"}, character=stranger), "pv"
    )
    before = db_state()
    assert gm_client.post(_undo_url(campaign, entry)).status_code == 404
    assert db_state() == before


def test_undo_buttons_are_the_gms_only(gm_client, player_client, campaign, gm, pc):
    result = run(campaign, gm, "damage", {"amount": "14"}, character=pc, typed=[1])
    entry = change_entries(result)[0]
    history = reverse("history", args=[campaign.pk])
    gm_page = gm_client.get(history).content.decode()
    assert _undo_url(campaign, entry) in gm_page
    assert _undo_url(campaign, entry, whole=True) in gm_page
    player_page = player_client.get(history).content.decode()
    assert f'id="entry-{entry.pk}"' in player_page
    assert "/undo" not in player_page
