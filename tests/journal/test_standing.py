"""What stands after undos (journal/standing.py): the pure resolution first, then on the log
the services write (an undo, an undo of an undo, a whole action undone, part of one)."""

import uuid

from journal import standing
from journal.models import AuditEntry, EntryKind
from play import services
from tests.play.steps import run

# The pure resolution: (undo entry id, id of the entry it reverts) pairs.


def test_nothing_undone_leaves_everything_standing():
    assert standing.resolve([]) == {}


def test_an_undo_takes_its_target_back():
    assert standing.resolve([(5, 2)]) == {2: 5}


def test_an_undo_undone_brings_its_target_back():
    # 5 undoes 2, 7 undoes 5: 2 stands again, 5 does not.
    assert standing.resolve([(5, 2), (7, 5)]) == {5: 7}


def test_chains_of_any_depth_alternate():
    # 2 <- 3 <- 4 <- 5 <- 6: the newest (6) stands, so 5 does not, so 4 does...
    pairs = [(3, 2), (4, 3), (5, 4), (6, 5)]
    assert standing.resolve(pairs) == {5: 6, 3: 4}
    assert standing.resolve(pairs[:3]) == {4: 5, 2: 3}


def test_a_target_brought_back_and_undone_again_names_its_standing_undo():
    # 5 undoes 2, 7 undoes 5 (2 back), 9 undoes 2 again.
    assert standing.resolve([(5, 2), (7, 5), (9, 2)]) == {5: 7, 2: 9}


def test_a_batch_is_undone_only_when_every_change_is():
    a, b = uuid.uuid4(), uuid.uuid4()
    changes = {a: {1, 2}, b: {3, 4}, uuid.uuid4(): set()}
    assert standing.fully_undone(changes, {1, 2, 3}) == {a}


# On the log the services write.


def changes_of(result):
    return [e for e in result.entries if e.kind == EntryKind.CHANGE]


def test_an_undone_change_does_not_stand_and_names_its_undo(campaign, gm, pc):
    damage = run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    (pv,) = changes_of(damage)
    undo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=pv.pk)

    assert standing.undone_by(campaign.pk) == {pv.pk: undo.entries[0].pk}
    # The damage had one change and it is undone: the action did not happen.
    assert standing.undone_batches(campaign.pk) == {pv.batch}
    stands = set(standing.standing_entries(campaign.pk).values_list("pk", flat=True))
    assert pv.pk not in stands and undo.entries[0].pk in stands
    # Neither the damage nor its undo counts in what was played.
    assert not standing.counted_entries(campaign.pk).exists()


def test_an_undo_undone_brings_the_change_back_into_every_count(campaign, gm, pc):
    damage = run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    (pv,) = changes_of(damage)
    undo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=pv.pk)
    redo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=undo.entries[0].pk)

    assert standing.undone_by(campaign.pk) == {undo.entries[0].pk: redo.entries[0].pk}
    # The undo's own action is the one undone now.
    assert standing.undone_batches(campaign.pk) == {undo.entries[0].batch}
    counted = list(standing.counted_entries(campaign.pk).values_list("pk", flat=True))
    assert counted == [pv.pk]


def test_r10_a_whole_action_undone_takes_its_rolls_out_of_the_counts(campaign, gm, pc):
    # 14 damage − 2 PA: coma on a failed Survie test (R10): a roll and several changes.
    damage = run(campaign, gm, "damage", {"amount": "14"}, character=pc, typed=[1])
    rolls = [e for e in damage.entries if e.kind == EntryKind.ROLL]
    assert rolls
    services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=changes_of(damage)[0].pk, whole_action=True
    )
    state = standing.standing(campaign.pk)

    assert set(state.undone_by) == {e.pk for e in changes_of(damage)}
    assert state.undone_batches == {damage.entries[0].batch}
    # Rolls are never undone: they stand (the history shows them) but count no more.
    assert all(state.stands(r) and not state.counts(r) for r in rolls)
    assert not standing.counted_entries(campaign.pk).exists()


def test_r10_part_of_an_action_undone_keeps_the_rest_and_its_rolls(campaign, gm, pc):
    damage = run(campaign, gm, "damage", {"amount": "14"}, character=pc, typed=[1])
    changes = changes_of(damage)
    assert len(changes) >= 2
    vital = next(e for e in changes if e.field == "vital")
    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=vital.pk, force=True)
    state = standing.standing(campaign.pk)

    assert set(state.undone_by) == {vital.pk}
    assert state.undone_batches == frozenset()
    counted = set(standing.counted_entries(campaign.pk).values_list("pk", flat=True))
    assert counted == {e.pk for e in damage.entries} - {vital.pk}


def test_it_reads_the_undos_in_two_queries(campaign, gm, pc, django_assert_num_queries):
    damage = run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=changes_of(damage)[0].pk)
    with django_assert_num_queries(2):
        standing.standing(campaign.pk)
    assert AuditEntry.objects.filter(campaign=campaign, reverts__isnull=False).count() == 1


def test_r3_an_entry_brought_back_by_undoing_its_undo_can_be_undone_again(campaign, gm, pc):
    damage = run(campaign, gm, "damage", {"amount": "5"}, character=pc)
    (pv,) = changes_of(damage)
    undo = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=pv.pk)
    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=undo.entries[0].pk)

    again = services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=pv.pk)

    assert standing.undone_by(campaign.pk)[pv.pk] == again.entries[0].pk


def test_r10_undoing_the_rest_of_an_action_leaves_what_was_undone_already(campaign, gm, pc):
    damage = run(campaign, gm, "damage", {"amount": "14"}, character=pc, typed=[1])
    changes = changes_of(damage)
    vital = next(e for e in changes if e.field == "vital")
    services.entry_undo(campaign_id=campaign.pk, actor=gm, entry_id=vital.pk, force=True)

    rest = services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=changes[0].pk, whole_action=True, force=True
    )

    assert {e.reverts_id for e in rest.entries} == {e.pk for e in changes} - {vital.pk}
    assert standing.undone_batches(campaign.pk) >= {damage.entries[0].batch}
