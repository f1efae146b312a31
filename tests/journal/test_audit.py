"""The audit log: a hash chain per campaign, append-only in the model and (on PostgreSQL) in
the database, `verify_log` naming the first altered entry, and no lost update under load."""

import itertools
import json
import threading
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import Error, connection, transaction
from django.db.models import ProtectedError

from campaign.models import Campaign
from campaign.services import campaign_create
from characters.models import Character
from journal import audit
from journal.models import AuditEntry, AuditLogImmutable
from play import services
from tests.helpers import entries, play_a_little, postgresql_only, raw, trigger_disabled
from tests.play.steps import run


def verify_log(*args) -> str:
    out = StringIO()
    call_command("verify_log", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def second(outsider):
    """Another campaign with its own character, played in between to interleave the log."""
    campaign = campaign_create(user=outsider, name="Ailleurs")
    character = Character.objects.create(
        campaign=campaign, name="Ysolde", pv=9, pv_max=9, flux=2, flux_max=2, pa=1
    )
    return campaign, character


# ---------------------------------------------------------------------------------------------
# The chain


def test_entries_chain_to_the_previous_entry_of_their_own_campaign(
    campaign, gm, pc, second, outsider
):
    other, ysolde = second
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    run(other, outsider, "damage", {"amount": "3"}, character=ysolde)
    play_a_little(campaign, gm, pc)
    play_a_little(other, outsider, ysolde)

    for item in (campaign, other):
        chain = entries(item)
        assert len(chain) == 6
        assert chain[0].prev_hash == ""
        for previous, entry in itertools.pairwise(chain):
            assert entry.prev_hash == previous.hash
        # The hash covers the content as read back from the database.
        assert [audit.entry_hash(e) for e in chain] == [e.hash for e in chain]
        assert len({e.hash for e in chain}) == 6
        assert audit.verify_chain(item) is None
    # Interleaved in the table, chained apart.
    ids = [e.pk for e in AuditEntry.objects.order_by("id")]
    assert [e.campaign_id for e in AuditEntry.objects.order_by("id")][:2] == [
        campaign.pk,
        other.pk,
    ]
    assert len(ids) == 12


def test_one_action_is_one_batch(campaign, gm, pc):
    result = run(
        campaign, gm, "damage", {"amount": "11", "ignores_pa": "on"}, character=pc, typed=[14]
    )
    run(campaign, gm, "heal", {"amount": "1"}, character=pc)

    batches = [e.batch for e in entries(campaign)]
    assert len(result.entries) == 5
    assert len(set(batches[:5])) == 1
    assert batches[5] != batches[0]


def test_the_hash_covers_every_column_that_says_what_happened(campaign, gm, pc):
    run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    (entry,) = entries(campaign)
    original = entry.hash
    for name, value in [
        ("after", 9),
        ("before", 12),
        ("field", "flux"),
        ("rule_id", "R1"),
        ("actor_name", "quelqu’un"),
        ("character_name", "Autre"),
        ("visibility", "gm"),
        ("text_fr", "R3 · PV : 11 → 9"),
        ("typed_in", True),
        ("prev_hash", "0" * 64),
    ]:
        changed = AuditEntry.objects.get(pk=entry.pk)
        setattr(changed, name, value)
        assert audit.entry_hash(changed) != original, name


# ---------------------------------------------------------------------------------------------
# Append-only in the model


def test_the_model_refuses_to_update_or_delete_an_entry(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    entry = entries(campaign)[0]
    before = [(e.pk, e.after, e.hash) for e in entries(campaign)]

    entry.after = 99
    with pytest.raises(AuditLogImmutable):
        entry.save()
    with pytest.raises(AuditLogImmutable):
        entry.delete()
    with pytest.raises(AuditLogImmutable):
        AuditEntry.objects.filter(pk=entry.pk).update(after=99)
    with pytest.raises(AuditLogImmutable):
        AuditEntry.objects.update(visibility="gm")
    with pytest.raises(AuditLogImmutable):
        AuditEntry.objects.filter(campaign=campaign).delete()
    with pytest.raises(AuditLogImmutable):
        AuditEntry.objects.all().delete()
    # bulk_update runs in atomic(savepoint=False): give it a savepoint of its own.
    with pytest.raises(AuditLogImmutable), transaction.atomic():
        AuditEntry.objects.bulk_update([entry], ["after"])

    assert [(e.pk, e.after, e.hash) for e in entries(campaign)] == before


def test_a_campaign_or_character_with_history_cannot_be_deleted(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    count = AuditEntry.objects.count()
    with pytest.raises(ProtectedError):
        Character.objects.get(pk=pc.pk).delete()
    with pytest.raises(ProtectedError):
        Campaign.objects.get(pk=campaign.pk).delete()
    assert AuditEntry.objects.count() == count == 5


# ---------------------------------------------------------------------------------------------
# Append-only in the database


@postgresql_only
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE journal_auditentry SET after = '99' WHERE id = %s",
        "UPDATE journal_auditentry SET visibility = 'gm' WHERE id >= %s",
        "DELETE FROM journal_auditentry WHERE id = %s",
    ],
)
def test_postgresql_refuses_raw_update_and_delete(campaign, gm, pc, sql):
    play_a_little(campaign, gm, pc)
    first = entries(campaign)[0]
    before = [(e.pk, e.after, e.visibility) for e in entries(campaign)]

    with pytest.raises(Error, match="append-only"), transaction.atomic():
        raw(sql, [first.pk])

    assert [(e.pk, e.after, e.visibility) for e in entries(campaign)] == before


# ---------------------------------------------------------------------------------------------
# verify_log


def test_verify_log_says_an_intact_chain_is_intact(campaign, gm, pc, second, outsider):
    play_a_little(campaign, gm, pc)
    other, ysolde = second
    run(other, outsider, "damage", {"amount": "4"}, character=ysolde)

    assert verify_log(str(campaign.pk)) == (
        f"campaign {campaign.pk} “La Tour de Sel”: 5 entries, chain intact\n"
    )
    assert verify_log() == (
        f"campaign {campaign.pk} “La Tour de Sel”: 5 entries, chain intact\n"
        f"campaign {other.pk} “Ailleurs”: 1 entries, chain intact\n"
    )


def test_verify_log_names_an_entry_altered_behind_the_apps_back(campaign, gm, pc, second):
    play_a_little(campaign, gm, pc)
    target = entries(campaign)[2]
    assert (target.field, target.after) == ("flux", 0)

    with trigger_disabled():
        raw("UPDATE journal_auditentry SET after = '5' WHERE id = %s", [target.pk])
    assert AuditEntry.objects.get(pk=target.pk).after == 5
    if connection.vendor == "postgresql":  # back on: the database refuses again
        with pytest.raises(Error, match="append-only"), transaction.atomic():
            raw("UPDATE journal_auditentry SET after = '0' WHERE id = %s", [target.pk])

    out = StringIO()
    with pytest.raises(CommandError, match=rf"campaign\(s\) {campaign.pk}\b"):
        call_command("verify_log", str(campaign.pk), stdout=out)
    assert out.getvalue() == (
        f"campaign {campaign.pk} “La Tour de Sel”: entry {target.pk} (seq 3) is the first "
        "broken one: its content does not match its hash\n"
    )
    assert audit.verify_chain(campaign) == audit.ChainProblem(
        target.pk, "its content does not match its hash", 3
    )
    # The other campaign's chain is untouched.
    other, _ = second
    assert audit.verify_chain(other) is None


def test_verify_log_sees_a_rehashed_forgery_at_the_next_link(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    target, following = entries(campaign)[1:3]
    forged = AuditEntry.objects.get(pk=target.pk)
    forged.roll = {**forged.roll, "dice": [20], "total": 21, "success": True}

    with trigger_disabled():
        raw(
            "UPDATE journal_auditentry SET roll = %s, hash = %s WHERE id = %s",
            [
                json.dumps(forged.roll),
                audit.entry_hash(forged),
                target.pk,
            ],
        )

    assert audit.verify_chain(campaign) == audit.ChainProblem(
        following.pk, "its link to the previous entry is broken", 3
    )
    with pytest.raises(CommandError):
        verify_log(str(campaign.pk))


def test_verify_log_sees_a_removed_entry(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    removed, following = entries(campaign)[3:5]

    with trigger_disabled():
        raw("DELETE FROM journal_auditentry WHERE id = %s", [removed.pk])

    assert audit.verify_chain(campaign) == audit.ChainProblem(
        following.pk, "its seq is 5 where 4 was expected: entry 4 is missing before it", 5
    )


def test_verify_log_refuses_an_unknown_campaign(db):
    with pytest.raises(CommandError, match="No campaign with id 404"):
        verify_log("404")


# ---------------------------------------------------------------------------------------------
# Concurrency: the campaign's row lock orders writers; no update is lost


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_twenty_simultaneous_damages_are_all_applied_and_logged(campaign, gm):
    target = Character.objects.create(
        campaign=campaign, name="Le Mur", pv=50, pv_max=50, flux=0, flux_max=0, pa=3
    )
    workers = 20
    start = threading.Barrier(workers)
    errors = []

    def one_damage():
        try:
            start.wait(timeout=30)
            services.character_damage(character_id=target.pk, actor=gm, amount=1, ignores_pa=True)
        except Exception as error:  # reported below, with the thread's own traceback lost
            errors.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=one_damage) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert Character.objects.get(pk=target.pk).pv == 30
    changes = list(AuditEntry.objects.filter(campaign=campaign, field="pv").order_by("id"))
    assert len(changes) == 20
    # Each writer saw the one before it: 50 → 49, 49 → 48, … 31 → 30, in log order.
    assert [(e.before, e.after) for e in changes] == [(50 - i, 49 - i) for i in range(20)]
    assert AuditEntry.objects.filter(campaign=campaign).count() == 20
    assert audit.verify_chain(campaign) is None
