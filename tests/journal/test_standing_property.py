"""Property: for random sequences of actions and undos played through the services, every
derived view (the recap: who fell, woke and died, each character from start to end, the
notable rolls, the counts) equals the same view on a campaign where only the standing actions
were played (journal/standing.py, journal/recap.py).

The dice are the server's, seeded per action, so an action replayed draws the same dice.
Undos go through `entry_undo` without forcing: an undo the rules find incoherent (the value
has moved on since) is refused and writes nothing, as at the table. Clock moves are played
but never undone here: an undone clock leaves the later entries at the game times they were
played at, which no replay can give back.
"""

import contextlib
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign import services as campaign_services
from campaign.models import Campaign
from characters.models import Character, Kind
from journal import recap as recaps
from journal import standing
from journal.models import AuditEntry, EntryKind, PlaySession
from play import services
from play.actions import ACTIONS, PARTY_ACTIONS
from play.services import runner
from rules.engine import RuleError

NAMES = ("Aveline", "Bastien")

characters = st.sampled_from(NAMES)
actions = st.one_of(
    st.tuples(st.just("damage"), characters, st.integers(1, 30)),
    st.tuples(st.just("heal"), characters, st.integers(1, 8)),
    st.tuples(st.just("spend_flux"), characters, st.integers(1, 4)),
    st.tuples(st.just("check"), characters, st.integers(5, 15)),
    st.tuples(st.just("clock"), st.just(""), st.integers(5, 90)),
    st.tuples(st.just("undo"), st.just(""), st.integers(0, 20)),
)


def new_campaign(gm, n: int) -> tuple[Campaign, dict[str, Character]]:
    campaign = campaign_services.campaign_create(user=gm, name=f"Propriété {n}")
    stats = {code: 1 for code in campaign.stats}
    rows = {
        name: Character.objects.create(
            campaign=campaign,
            name=name,
            kind=Kind.NPC,
            stats=stats,
            pv=12,
            pv_max=14,
            flux=6,
            flux_max=8,
            pa=1,
        )
        for name in NAMES
    }
    return campaign, rows


class Seeded:
    """Stands in for the server's RNG: each action draws from its own seed."""

    seed = 0

    def __call__(self):
        return random.Random(self.seed)


def play(campaign, rows, gm, step, seed, seeded: Seeded):
    """One action through its form and service; None when the form or the rules refuse it
    (nothing written then)."""
    kind, name, amount = step
    seeded.seed = seed
    campaign = Campaign.objects.get(pk=campaign.pk)
    if kind == "clock":
        spec, target, character = PARTY_ACTIONS["clock"], {"campaign_id": campaign.pk}, None
        body = {"minutes": str(amount)}
    else:
        character = Character.objects.get(pk=rows[name].pk)
        spec, target = ACTIONS[kind], {"character_id": character.pk}
        body = {"amount": str(amount)}
        if kind == "check":
            body = {"stat": campaign.stats[0], "difficulty": str(amount)}
    form = spec.form({"visibility": "everyone", **body}, campaign=campaign, character=character)
    if not form.is_valid():
        return None
    try:
        return spec.service(actor=gm, **target, **form.service_arguments())
    except RuleError:
        return None


def view(campaign, gm_membership) -> dict:
    """The derived views of the whole campaign, without what differs between two campaigns
    by construction (entry ids, real times)."""
    session = PlaySession.objects.filter(campaign=campaign).order_by("started_at").first()
    if session is None:
        # Nothing played: the recap a session with nothing counted in it gives.
        return {
            "rolls": 0,
            "changes": 0,
            "game": (None, None),
            "events": [],
            "characters": [],
            "notable": [],
        }
    entries = AuditEntry.objects.filter(campaign=campaign).order_by("id")
    recap = recaps.build(
        session, entries, standing.standing(campaign.pk), "fr", membership=gm_membership
    )
    return {
        "rolls": recap.rolls,
        "changes": recap.changes,
        "game": (recap.game_start, recap.game_end),
        "events": [(e.kind, e.when, e.name, e.text) for e in recap.events],
        "characters": [(c.name, c.start, c.end, c.sequels) for c in recap.characters],
        "notable": [(n.when, n.name, n.text) for n in recap.notable],
    }


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(actions, min_size=1, max_size=12))
def test_r10_r11_every_derived_view_equals_the_campaign_played_without_what_was_undone(
    gm, monkeypatch, steps
):
    seeded = Seeded()
    monkeypatch.setattr(runner.random, "SystemRandom", seeded)
    counter = Campaign.objects.count()
    played, rows = new_campaign(gm, counter)
    membership = played.memberships.get(user=gm)
    done = []  # (step, seed, batch) of each action played
    for seed, step in enumerate(steps):
        if step[0] != "undo":
            result = play(played, rows, gm, step, seed, seeded)
            if result is not None and result.entries:
                done.append((step, seed, result.entries[0].batch))
            continue
        # Undo a whole action that stands, or an undo (which brings its action back).
        state = standing.standing(played.pk)
        batches = [b for s, _, b in done if s[0] != "clock" and b not in state.undone_batches]
        undos = list(
            AuditEntry.objects.filter(campaign=played, action="undo", kind=EntryKind.CHANGE)
            .exclude(pk__in=list(state.undone_by))
            .values_list("batch", flat=True)
            .distinct()
        )
        # Not across a clock move: the clock applied the timers of what stood then (a
        # borrowed time cancelled by a heal), and an undo after it restores values, not the
        # time that passed; the campaign replayed without the action would have had them.
        clocks = AuditEntry.objects.filter(campaign=played, action="clock")
        after = clocks.order_by("-id").values_list("id", flat=True).first() or 0
        later = set(
            AuditEntry.objects.filter(campaign=played, id__gt=after).values_list("batch", flat=True)
        )
        targets = [b for b in batches + undos if b in later]
        if not targets:
            continue
        batch = targets[step[2] % len(targets)]
        entry = AuditEntry.objects.filter(batch=batch, kind=EntryKind.CHANGE).first()
        if entry is None:
            continue  # a roll alone: nothing to undo
        # Refused when the rules find it incoherent: nothing written, as at the table.
        with contextlib.suppress(RuleError, services.UndoConflict):
            services.entry_undo(
                campaign_id=played.pk, actor=gm, entry_id=entry.pk, whole_action=True
            )

    undone = standing.undone_batches(played.pk)
    replayed, replay_rows = new_campaign(gm, counter + 1)
    for step, seed, batch in done:
        if batch not in undone:
            result = play(replayed, replay_rows, gm, step, seed, seeded)
            assert result is not None, step  # what stood was playable then

    assert view(played, membership) == view(replayed, replayed.memberships.get(user=gm))
