"""The keyed chain: hashes an attacker with the table and the code cannot recompute,
a seq that shows gaps, keys that rotate, seals that catch a deleted tail, and (on PostgreSQL)
a database that refuses UPDATE, DELETE and TRUNCATE of the log.

The tampering runs on both databases where it can: SQLite has no trigger to disable, so the
rewrites simply happen; the refusals are PostgreSQL's.
"""

import itertools
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import Error, connection, transaction

from journal import audit
from journal.models import AuditEntry
from tests.helpers import (
    TRIGGER,
    delete_tail,
    entries,
    play_a_little,
    postgresql_only,
    raw,
    rewrite,
    trigger_disabled,
)
from tests.play.steps import run

# What an attacker who has the code and the database, but not the key, would hash with.
GUESSED_KEYS = [
    audit.derived_key("django-insecure-dev-only-key-never-use-in-production-3f9a1c-x"),
    b"",
    b"chroniqueur",
]


def verify_log(*args) -> tuple[str, bool]:
    """The command's output, and whether it succeeded."""
    out = StringIO()
    try:
        call_command("verify_log", *args, stdout=out)
    except CommandError:
        return out.getvalue(), False
    return out.getvalue(), True


# ---------------------------------------------------------------------------------------------
# The key


def test_entries_are_numbered_and_signed_with_the_current_key(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    chain = entries(campaign)
    ring = audit.keyring()
    assert [e.seq for e in chain] == [1, 2, 3, 4, 5]
    assert {e.key_id for e in chain} == {ring.current}
    for entry in chain:
        # HMAC with the key, not a plain hash anyone could recompute.
        assert audit.entry_hash(entry) == entry.hash
        for guess in GUESSED_KEYS:
            assert audit.entry_hash(entry, guess) != entry.hash
    assert audit.verify_chain(campaign) is None


def test_without_audit_log_key_the_key_is_derived_from_secret_key(settings, campaign, gm, pc):
    settings.AUDIT_LOG_KEY = ""
    settings.AUDIT_LOG_OLD_KEYS = []
    derived = audit.derived_key(settings.SECRET_KEY)
    assert audit.keyring().current == audit.key_id_of(derived)
    assert derived != settings.SECRET_KEY.encode()  # a purpose string: not the secret itself
    play_a_little(campaign, gm, pc)
    assert {e.key_id for e in entries(campaign)} == {audit.key_id_of(derived)}

    # A new SECRET_KEY with the old one in SECRET_KEY_FALLBACKS: old entries still verify.
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "une-toute-nouvelle-clef-secrete-" * 2
    assert audit.verify_chain(campaign) is None
    # Without the fallback they do not, and the entry is named.
    settings.SECRET_KEY_FALLBACKS = []
    first = entries(campaign)[0]
    assert audit.verify_chain(campaign) == audit.ChainProblem(
        first.pk,
        f"it is signed with a key this server does not have (key id {first.key_id})",
        1,
    )


def test_a_rotated_key_signs_new_entries_and_the_old_one_still_verifies(settings, campaign, gm, pc):
    settings.AUDIT_LOG_KEY = "ancienne-clef-du-journal"
    settings.AUDIT_LOG_OLD_KEYS = []
    play_a_little(campaign, gm, pc)
    old_id = audit.keyring().current

    settings.AUDIT_LOG_KEY = "nouvelle-clef-du-journal"
    settings.AUDIT_LOG_OLD_KEYS = ["ancienne-clef-du-journal"]
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    chain = entries(campaign)
    assert [e.key_id for e in chain] == [old_id] * 5 + [audit.keyring().current]
    assert audit.keyring().current != old_id
    assert verify_log(str(campaign.pk)) == (
        f"campaign {campaign.pk} “La Tour de Sel”: 6 entries, chain intact\n",
        True,
    )

    # The old key forgotten: its entries can no longer be proven, the first is named.
    settings.AUDIT_LOG_OLD_KEYS = []
    output, ok = verify_log(str(campaign.pk))
    assert not ok
    assert f"entry {chain[0].pk} (seq 1) is the first broken one" in output
    assert f"key id {old_id}" in output


def test_an_entry_signed_with_a_retired_key_after_a_newer_one_is_refused(
    settings, campaign, gm, pc
):
    """A leaked old key must not let someone append (or rewrite) after the rotation."""
    settings.AUDIT_LOG_KEY = "ancienne-clef-du-journal"
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    settings.AUDIT_LOG_KEY = "nouvelle-clef-du-journal"
    settings.AUDIT_LOG_OLD_KEYS = ["ancienne-clef-du-journal"]
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    third = entries(campaign)[2]
    old = b"ancienne-clef-du-journal"
    forged = AuditEntry.objects.get(pk=third.pk)
    forged.key_id = audit.key_id_of(old)
    forged.after = 12
    with trigger_disabled():
        raw(
            "UPDATE journal_auditentry SET key_id = %s, after = '12', hash = %s WHERE id = %s",
            [forged.key_id, audit.entry_hash(forged, old), third.pk],
        )
    assert audit.verify_chain(campaign) == audit.ChainProblem(
        third.pk,
        f"it is signed with an older key (key id {forged.key_id}) than the entry before it",
        3,
    )


# ---------------------------------------------------------------------------------------------
# Tampering


@pytest.mark.parametrize("guess", GUESSED_KEYS)
def test_a_rewrite_rehashed_without_the_key_is_detected_and_the_entry_named(
    campaign, gm, pc, guess
):
    play_a_little(campaign, gm, pc)
    target = entries(campaign)[2]
    assert (target.field, target.after) == ("flux", 0)

    # Flux spent 7 → 0 becomes 7 → 5, and every later link is recomputed to match.
    rewrite(target.pk, guess, after=5, text_fr="R5 · Flux : 7 → 5")

    chain = entries(campaign)
    assert chain[2].after == 5
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(chain))
    assert audit.verify_chain(campaign) == audit.ChainProblem(
        target.pk, "its content does not match its hash", 3
    )
    output, ok = verify_log(str(campaign.pk))
    assert not ok
    assert output == (
        f"campaign {campaign.pk} “La Tour de Sel”: entry {target.pk} (seq 3) is the first broken "
        "one: its content does not match its hash\n"
    )


@pytest.mark.parametrize(
    "after, text",
    [
        (1e-05, "R5 · Flux : 7 → 0,00001"),  # orjson writes 0.00001, json 1e-05
        (2**70, "R5 · Flux : un nombre au-delà de 64 bits"),  # orjson refuses it
        ({"b": [1.5, None, True], "a": 'é’\u2028\x01"\\'}, "Tab\t, retour\n, « guillemets »"),
    ],
)
def test_entries_the_fast_reader_writes_otherwise_still_verify(campaign, gm, pc, after, text):
    """verify_log reads PostgreSQL's rows by a binary COPY and hashes them with orjson; where
    orjson's JSON differs from the definition (`payload`), the definition decides. Each
    entry here is signed with the real key: the chain must stay intact, and a one-character
    change must still be caught."""
    play_a_little(campaign, gm, pc)
    target = entries(campaign)[2]
    key = audit.keyring().key(target.key_id)
    # A moment on a whole second: its microseconds still written (isoformat's six digits).
    with trigger_disabled():
        raw(
            "UPDATE journal_auditentry SET created_at = %s WHERE id = %s",
            [target.created_at.replace(microsecond=0), target.pk],
        )
    rewrite(target.pk, key, after=after, text_fr=text)
    assert audit.verify_chain(campaign) is None
    assert verify_log(str(campaign.pk)) == (
        f"campaign {campaign.pk} “La Tour de Sel”: 5 entries, chain intact\n",
        True,
    )
    with trigger_disabled():
        raw("UPDATE journal_auditentry SET text_fr = %s WHERE id = %s", [text + ".", target.pk])
    assert audit.verify_chain(campaign) == audit.ChainProblem(
        target.pk, "its content does not match its hash", 3
    )


def test_a_gap_in_the_middle_is_named_by_its_seq(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    chain = entries(campaign)
    with trigger_disabled():
        raw("DELETE FROM journal_auditentry WHERE id IN (%s, %s)", [chain[1].pk, chain[2].pk])
    assert audit.verify_chain(campaign) == audit.ChainProblem(
        chain[3].pk, "its seq is 4 where 2 was expected: entries 2 to 3 are missing", 4
    )


def test_a_deleted_tail_is_caught_by_a_seal_kept_from_before(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    kept = str(audit.seal_for(campaign.pk))
    head = entries(campaign)[-1]
    assert kept == f"CHQ1-{campaign.pk}-{head.pk}-5-{head.hash[:16]}"
    output, ok = verify_log("--seal", kept)
    assert ok, output
    assert "5 entries, chain intact, extends seal" in output

    delete_tail(2, campaign)

    # Without a seal a shorter chain still verifies: that is what seals are for.
    assert audit.verify_chain(campaign) is None
    output, ok = verify_log("--seal", kept)
    assert not ok
    assert output == (
        f"campaign {campaign.pk} “La Tour de Sel”: does not extend seal {kept}: entry {head.pk} "
        "(seq 5), the seal's last entry, is no longer in the log (the end of the log was "
        "deleted)\n"
    )
    # Writing more does not hide it: the sealed entry never comes back.
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    assert audit.verify_chain(campaign) is None
    assert not verify_log("--seal", kept)[1]


def test_a_seal_catches_a_rewrite_even_by_someone_holding_the_key(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    kept = str(audit.seal_for(campaign.pk))
    target = entries(campaign)[1]
    key = audit.keyring().key(audit.keyring().current)
    rewrite(target.pk, key, text_fr="R10 · réécrit")

    assert audit.verify_chain(campaign) is None  # with the key the chain is consistent…
    output, ok = verify_log("--seal", kept)  # …but it no longer reaches the sealed entry
    assert not ok
    assert "is no longer the entry sealed (seq 5" in output


def test_a_seal_of_a_rewritten_log_without_the_key_names_the_entry(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    kept = str(audit.seal_for(campaign.pk))
    target = entries(campaign)[1]
    with trigger_disabled():
        raw("UPDATE journal_auditentry SET text_fr = 'R10 · autre' WHERE id = %s", [target.pk])
    output, ok = verify_log("--seal", kept)
    assert not ok
    assert f"entry {target.pk} (seq 2) is the first broken one" in output


def test_seals_parse_what_people_paste_and_refuse_the_rest(campaign):
    seal = audit.Seal.parse("  chq1-12-3456-78-0123456789ABCDEF\n")
    assert seal == audit.Seal(12, 3456, 78, "0123456789abcdef")
    assert str(seal) == "CHQ1-12-3456-78-0123456789abcdef"
    for bad in ("", "CHQ1-1-2-3", "CHQ2-1-2-3-0123456789abcdef", "CHQ1-1-2-3-0123456789abcdeg"):
        with pytest.raises(audit.BadSeal):
            audit.Seal.parse(bad)
    with pytest.raises(CommandError, match="Not a seal"):
        call_command("verify_log", "--seal", "CHQ1-x", stdout=StringIO())
    # An empty log has a seal too, which any later log extends.
    empty = audit.seal_for(campaign.pk)
    assert str(empty) == f"CHQ1-{campaign.pk}-0-0-{'0' * 16}"
    assert audit.check_seal(campaign.pk, empty).extends


def test_a_seal_of_another_campaign_is_refused(campaign, gm, pc):
    run(campaign, gm, "damage", {"amount": "3"}, character=pc)
    seal = audit.seal_for(campaign.pk)
    other = audit.Seal(campaign.pk + 1, seal.entry_id, seal.count, seal.prefix)
    assert audit.check_seal(campaign.pk, other).problem == "other_campaign"


# ---------------------------------------------------------------------------------------------
# The database refuses (PostgreSQL)


@postgresql_only
@pytest.mark.parametrize(
    "sql",
    [
        "TRUNCATE journal_auditentry",
        "TRUNCATE journal_auditentry RESTART IDENTITY CASCADE",
        "TRUNCATE campaign_campaign CASCADE",
        "DELETE FROM journal_auditentry",
        "DELETE FROM journal_auditentry WHERE id >= %s",
        "UPDATE journal_auditentry SET hash = hash WHERE id = %s",
    ],
)
def test_postgresql_refuses_truncate_delete_and_update_of_the_log(campaign, gm, pc, sql):
    play_a_little(campaign, gm, pc)
    before = [(e.pk, e.hash) for e in entries(campaign)]
    # TRUNCATE waits for no queued trigger events: run the deferred FK checks now.
    raw("SET CONSTRAINTS ALL IMMEDIATE")
    with pytest.raises(Error, match="append-only"), transaction.atomic():
        raw(sql, [before[-2][0]] if "%s" in sql else ())
    raw("SET CONSTRAINTS ALL DEFERRED")
    assert [(e.pk, e.hash) for e in entries(campaign)] == before
    assert audit.verify_chain(campaign) is None


@postgresql_only
def test_the_row_trigger_disabled_still_leaves_truncate_refused(campaign, gm, pc):
    play_a_little(campaign, gm, pc)
    raw("SET CONSTRAINTS ALL IMMEDIATE")
    raw(f"ALTER TABLE journal_auditentry DISABLE TRIGGER {TRIGGER}")
    try:
        with pytest.raises(Error, match="TRUNCATE refused"), transaction.atomic():
            raw("TRUNCATE journal_auditentry")
    finally:
        raw(f"ALTER TABLE journal_auditentry ENABLE TRIGGER {TRIGGER}")
    assert AuditEntry.objects.filter(campaign=campaign).count() == 5


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_transactional_tests_still_empty_the_tables(campaign, gm, pc):
    """The flush after this test truncates the log past its triggers (tests/conftest.py);
    the next test would see this one's entries otherwise."""
    play_a_little(campaign, gm, pc)
    assert AuditEntry.objects.count() == 5
    assert connection.vendor == "postgresql"


@pytest.mark.parametrize(
    "text",
    [
        b"1180591620717411303424",
        b"[-9223372036854775809, 9223372036854775807]",
        b"1e400",
        b'{"a": 1, "a": 2}',
        b'"\\ud800"',
        b'{"pv": -3, "roll": {"faces": [20, 1], "total": 1.5e-07}}',
    ],
)
def test_the_fast_json_reader_reads_what_the_standard_library_reads(text):
    assert audit._loads(memoryview(text)) == json.loads(text)
    assert type(audit._loads(text)) is type(json.loads(text))


@postgresql_only
@pytest.mark.django_db(transaction=True)  # the second process reads what this one committed
def test_verify_log_in_two_processes_finds_what_one_finds(campaign, gm, pc, monkeypatch):
    """verify_log walks a long chain in two processes (`walk_chain_parallel`); the seam
    between the halves is checked, and a problem anywhere is named as the plain walk names it."""
    monkeypatch.setattr(audit, "PARALLEL_FROM", 4)
    play_a_little(campaign, gm, pc)
    for _ in range(4):
        run(campaign, gm, "damage", {"amount": "4"}, character=pc)
        run(campaign, gm, "heal", {"amount": "2"}, character=pc)
    chain = entries(campaign)
    total, seam = len(chain), len(chain) // 2
    assert total >= 12
    assert audit.walk_chain_parallel(campaign.pk) == audit.walk_chain(campaign.pk)
    assert audit.walk_chain_parallel(campaign.pk).count == total
    assert verify_log(str(campaign.pk)) == (
        f"campaign {campaign.pk} “La Tour de Sel”: {total} entries, chain intact\n",
        True,
    )
    # A rewrite in the second half, every later link recomputed without the key.
    target = chain[seam + 2]
    rewrite(target.pk, GUESSED_KEYS[0], after=target.after, text_fr=target.text_fr + " ")
    problem = audit.ChainProblem(target.pk, "its content does not match its hash", target.seq)
    assert audit.walk_chain_parallel(campaign.pk).problem == problem
    # The entry just before the seam deleted: the second half alone cannot see it.
    gone = chain[seam - 1]
    with trigger_disabled():
        raw("DELETE FROM journal_auditentry WHERE id = %s", [gone.pk])
    assert audit.walk_chain_parallel(campaign.pk) == audit.walk_chain(campaign.pk)
    assert audit.walk_chain_parallel(campaign.pk).problem.reason == (
        f"its seq is {gone.seq + 1} where {gone.seq} was expected: "
        f"entry {gone.seq} is missing before it"
    )


def test_checking_from_an_entry_read_tells_what_checking_its_seal_tells(campaign, gm, pc):
    """The live stream checks the log once per change from the entry before the batch, read
    once (journal.audit.check_from): the same seals and the same verdict as check_seal, on an
    intact log and after an entry past it was rewritten without the key."""
    play_a_little(campaign, gm, pc)
    log = entries(campaign)
    sealed = log[1]
    by_seal = audit.check_seal(campaign.pk, audit.seal_of(campaign.pk, head_of(sealed)))
    by_entry = audit.check_from(campaign.pk, sealed)
    assert by_entry.extends and by_seal.extends
    assert (str(by_entry.seal), str(by_entry.current)) == (str(by_seal.seal), str(by_seal.current))
    assert str(by_entry.current) == str(audit.seal_for(campaign.pk))
    # When its last entry was written, as the seal endpoint shows it (a moment, not text).
    assert by_entry.current.at == audit.seal_for(campaign.pk).at
    # From the empty log: the whole chain is walked.
    assert str(audit.check_from(campaign.pk, None).current) == str(by_seal.current)

    with trigger_disabled():
        raw("UPDATE journal_auditentry SET text_fr = 'R10 · autre' WHERE id = %s", [log[3].pk])
    by_seal = audit.check_seal(campaign.pk, audit.seal_of(campaign.pk, head_of(sealed)))
    by_entry = audit.check_from(campaign.pk, sealed)
    assert not by_entry.extends
    assert by_entry.problem == by_seal.problem == "broken"
    assert by_entry.chain == by_seal.chain
    assert by_entry.chain.entry_id == log[3].pk


def head_of(entry) -> tuple:
    return entry.pk, entry.seq, entry.hash, entry.created_at
