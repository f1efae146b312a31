"""The stream checks the log's seal once per change for every open page (`log_seal`): the
same check a page asks of journal.views.history_seal after each change, told with the change
only when the log extends the seal the pages kept before it."""

from __future__ import annotations

import pytest

from campaign.models import Membership
from journal import audit
from journal import events as live
from live import stream
from tests.helpers import rewrite
from tests.live.helpers import adamage, damage, open_stream, play

pytestmark = pytest.mark.django_db(transaction=True)


def event_of(result) -> live.Event:
    return live.Event(
        result.entries[0].campaign_id, tuple(result.character_ids), result.entries[-1].pk
    )


def test_a_change_is_checked_against_the_seal_before_its_batch(world):
    campaign = world.campaign
    before = str(audit.seal_for(campaign.pk))
    result = damage(campaign, world.gm, world.pc)
    after = str(audit.seal_for(campaign.pk))
    assert before != after
    assert stream._log_check(event_of(result)) == (before, after)
    # The same answer as the page's own question to the server.
    check = audit.check_seal(campaign.pk, audit.Seal.parse(before))
    assert check.extends and str(check.current) == after


def test_the_first_batch_of_a_log_is_checked_from_the_empty_seal(world):
    campaign = world.campaign
    assert audit.seal_for(campaign.pk).count == 0  # the fixtures wrote nothing in the log
    result = damage(campaign, world.gm, world.pc)
    told = stream._log_check(event_of(result))
    assert told == (str(audit.seal_of(campaign.pk, None)), str(audit.seal_for(campaign.pk)))


def test_a_log_rewritten_before_the_batch_is_not_vouched_for(world):
    """An entry before the batch rewritten without the key: the chain from it does not verify,
    so the change comes without `log_seal` and every page asks (and is told what is wrong)."""
    campaign = world.campaign
    damage(campaign, world.gm, world.pc)
    earlier = audit.seal_for(campaign.pk).entry_id
    result = damage(campaign, world.gm, world.pc)
    rewrite(earlier, audit.derived_key("pas la bonne clef"), text_fr="R10 · autre chose")
    assert stream._log_check(event_of(result)) is None


def test_every_viewer_told_of_a_change_gets_the_check_and_it_is_made_once(world, monkeypatch):
    """The GM and a player of the campaign are told the same check with the change; the
    process made it once for them all. A viewer told nothing is told no seal either."""
    calls = []
    check_once = stream._log_check

    def counted(event):
        calls.append(event.log_id)
        return check_once(event)

    monkeypatch.setattr(stream, "_log_check", counted)
    campaign = world.campaign
    memberships = {m.user_id: m for m in Membership.objects.filter(campaign=campaign)}
    before = str(audit.seal_for(campaign.pk))
    told = []

    async def scenario():
        readers = [
            await open_stream(memberships[user.pk])
            for user in (world.gm, world.player, world.other_player)
        ]
        await adamage(campaign, world.gm, world.pc)
        gm, player, other = readers
        told.extend([(await r.event())["data"]["log_seal"] for r in (gm, player)])
        await other.silence()  # another's PV is not theirs to know: no change, no seal
        for reader in readers:
            await reader.close()

    play(scenario)
    after = str(audit.seal_for(campaign.pk))
    assert told == [{"from": before, "to": after}] * 2
    assert len(calls) == 1
