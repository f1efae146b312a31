"""The dice's own story: per roller and per character, tests made, successes against what each
roll's exact odds promised, natural 1s and 20s, Survie passed and failed; the D20's faces,
server dice and dice typed in apart, each with a chi-square verdict (rules/engine/fairness.py).

Only what counts after the undos (journal/standing.py: an action undone did not happen), and
only what the viewer may read: the entries come from `journal.visibility.visible_entries`, and
a sealed roll counts for a player once the GM has revealed it (`readable_results`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from django.db.models import Q
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from campaign.models import Membership, PartyVisibility, Visibility
from journal.charts import in_session
from journal.models import DiceTally, EntryKind, PlaySession
from journal.standing import standing
from journal.tally import d20_faces, passing_faces
from journal.visibility import readable_results, sees_every_entry, visible_entries
from rules.engine.fairness import (
    FACES,
    MIN_EXPECTED_PER_FACE,
    MINIMUM_ROLLS,
    Fairness,
    Verdict,
    fairness,
)

SURVIE = "Survie"
SERVER = "server"  # the roller of what no person did: the clock, the rules


@dataclass
class Tally:
    """One roller's or one character's dice."""

    key: object
    label: str
    role: str = ""  # "gm", "player", SERVER, or "" for a character
    tests: int = 0
    successes: int = 0
    expected: Fraction = Fraction(0)
    natural_1: int = 0
    natural_20: int = 0
    survie_passed: int = 0
    survie_failed: int = 0
    server_faces: list[int] = field(default_factory=lambda: [0] * FACES)
    typed_faces: list[int] = field(default_factory=lambda: [0] * FACES)

    @property
    def expected_successes(self) -> float:
        return float(self.expected)

    @property
    def luck(self) -> float:
        """Successes beyond (or short of) what the odds promised."""
        return self.successes - float(self.expected)

    @property
    def server_fairness(self) -> Fairness:
        return fairness(self.server_faces)

    @property
    def typed_fairness(self) -> Fairness:
        return fairness(self.typed_faces)

    @property
    def server_histogram(self) -> Histogram:
        return histogram(self.server_fairness)

    @property
    def typed_histogram(self) -> Histogram:
        return histogram(self.typed_fairness)

    @property
    def d20_rolls(self) -> int:
        return sum(self.server_faces) + sum(self.typed_faces)


@dataclass
class DiceStory:
    rollers: list[Tally]
    characters: list[Tally]
    server: Tally  # every D20 the server rolled
    typed: Tally  # every D20 a person typed in
    minimum: int = MINIMUM_ROLLS


def dice_story(membership: Membership, session: PlaySession | None = None) -> DiceStory:
    """The campaign's dice (or one play session's) as `membership` may see them, what stands
    only. The whole campaign reads the tally kept with the log (journal/tally.py), a session
    the log itself (a session is short)."""
    if session is None:
        return kept_story(membership)
    return log_story(membership, session)


def _tally_for(tallies: dict, key, label: str, role: str) -> Tally:
    found = tallies.get(key)
    if found is None:
        found = tallies[key] = Tally(key, label, role)
    return found


def kept_story(membership: Membership) -> DiceStory:
    """`log_story` of the whole campaign, read from the kept tally's few rows, filtered for
    the viewer as `journal.visibility` filters the rolls they stand for (tests/journal hold
    the two side by side)."""
    campaign = membership.campaign
    rows = DiceTally.objects.filter(campaign_id=campaign.pk)
    if not sees_every_entry(membership):
        rows = rows.filter(Q(visibility=Visibility.EVERYONE) | Q(revealed=True))
        if campaign.party_visibility != PartyVisibility.BARS:
            # Rolls are neither vital state nor conditions: only one's own and the party's.
            rows = rows.filter(
                Q(character__isnull=True) | Q(character__owner_id=membership.user_id)
            )
    roles = _roles(campaign)
    rollers: dict[object, Tally] = {}
    characters: dict[object, Tally] = {}
    server = Tally(SERVER, "", SERVER)
    typed = Tally("typed", "")
    for row in rows.order_by("pk"):
        role = roles.get(row.actor_id, "player") if row.actor_id is not None else SERVER
        tallies = [
            _tally_for(rollers, row.actor_id, row.actor_name, role),
            typed if row.typed_in else server,
        ]
        if row.character_id is not None:
            tallies.append(_tally_for(characters, row.character_id, row.character_name, ""))
        for tally in tallies:
            tally.tests += row.tests
            tally.successes += row.successes
            tally.expected += Fraction(row.passing, FACES)
            tally.natural_1 += row.natural_1
            tally.natural_20 += row.natural_20
            tally.survie_passed += row.survie_passed
            tally.survie_failed += row.survie_failed
            target = tally.typed_faces if row.typed_in else tally.server_faces
            for i, count in enumerate(row.faces or ()):
                target[i] += count
    return _story(rollers, characters, server, typed)


def _roles(campaign) -> dict:
    return {
        m.user_id: ("gm" if m.is_gm else "player")
        for m in campaign.memberships.order_by().only("user_id", "role")
    }


def _story(rollers, characters, server, typed) -> DiceStory:
    order = {"gm": 0, "player": 1, SERVER: 2}
    return DiceStory(
        rollers=sorted(
            (t for t in rollers.values() if t.tests or t.d20_rolls),
            key=lambda t: (order[t.role], t.label.lower()),
        ),
        characters=sorted(
            (t for t in characters.values() if t.tests or t.d20_rolls),
            key=lambda t: t.label.lower(),
        ),
        server=server,
        typed=typed,
    )


def log_story(membership: Membership, session: PlaySession | None = None) -> DiceStory:
    """The dice's story read from the log's rolls (one session's, or the whole campaign's)."""
    campaign = membership.campaign
    entries = visible_entries(membership).filter(kind=EntryKind.ROLL, field="")
    if session is not None:
        entries = in_session(entries, session)
    entries = readable_results(membership, entries)
    # An action undone as a whole did not happen: its rolls are out of every count.
    entries = standing(campaign.pk).counted(entries)
    roles = _roles(campaign)
    rollers: dict[object, Tally] = {}
    characters: dict[object, Tally] = {}
    server = Tally(SERVER, "", SERVER)
    typed = Tally("typed", "")
    rows = entries.order_by().values_list(
        "actor_id", "actor_name", "character_id", "character_name", "typed_in", "roll"
    )
    for actor_id, actor_name, character_id, character_name, typed_in, roll in rows.iterator(
        chunk_size=5000
    ):
        if not isinstance(roll, dict):
            continue
        roller = rollers.get(actor_id)
        if roller is None:
            role = roles.get(actor_id, "player") if actor_id is not None else SERVER
            roller = rollers[actor_id] = Tally(actor_id, actor_name, role)
        tallies = [roller, typed if typed_in else server]
        if character_id is not None:
            character = characters.get(character_id)
            if character is None:
                character = characters[character_id] = Tally(character_id, character_name)
            tallies.append(character)
        faces = d20_faces(roll)
        is_test = "natural" in roll and "success" in roll
        odds = Fraction(passing_faces(roll, campaign.natural_extremes), FACES) if is_test else None
        for tally in tallies:
            target = tally.typed_faces if typed_in else tally.server_faces
            for face in faces:
                if 1 <= face <= FACES:
                    target[face - 1] += 1
            if not is_test:
                continue
            tally.tests += 1
            tally.successes += bool(roll["success"])
            tally.expected += odds
            tally.natural_1 += roll["natural"] == 1
            tally.natural_20 += roll["natural"] == FACES
            if roll.get("skill") == SURVIE:
                if roll["success"]:
                    tally.survie_passed += 1
                else:
                    tally.survie_failed += 1
    return _story(rollers, characters, server, typed)


@dataclass
class Bar:
    face: int
    count: int
    x: float
    y: float
    height: float


@dataclass
class Histogram:
    """The 20 faces as bars, with the count a fair die would give each, in drawing units."""

    fairness: Fairness
    bars: list[Bar]
    expected_y: float
    top: int
    width: int = 420
    height: int = 150

    @property
    def verdict(self) -> str:
        return verdict_text(self.fairness)

    @property
    def rolls(self) -> int:
        return self.fairness.rolls


HIST_LEFT, HIST_BOTTOM, HIST_TOP = 30, 20, 8


def histogram(found: Fairness) -> Histogram:
    width, height = 420, 150
    top = max(max(found.counts), math.ceil(found.expected), 1)
    plot_h = height - HIST_BOTTOM - HIST_TOP
    step = (width - HIST_LEFT - 4) / FACES
    bars = []
    for face, count in enumerate(found.counts, start=1):
        h = round(count / top * plot_h, 1)
        x = round(HIST_LEFT + (face - 1) * step + 1, 1)
        bars.append(Bar(face, count, x, round(height - HIST_BOTTOM - h, 1), h))
    expected_y = round(height - HIST_BOTTOM - found.expected / top * plot_h, 1)
    return Histogram(found, bars, expected_y, top, width, height)


def _percent(p: float) -> str:
    """A chance as a French reader reads it: « 43 % », « 0,4 % », « moins de 0,01 % »."""
    if p < 0.0001:
        return _("less than 0.01%")
    value = p * 100
    digits = 0 if value >= 10 else 1 if value >= 1 else 2
    return _("%(value)s%%") % {"value": number_format(round(value, digits), digits)}


def verdict_text(found: Fairness) -> str:
    """The verdict in plain words; the p-value said as how often a fair die would do as much."""
    if found.verdict is Verdict.NONE:
        return _(
            "No verdict yet: %(rolls)s of the %(minimum)s rolls the test needs (%(per_face)s "
            "expected on each of the 20 faces; with fewer, its answer would not mean what it says)."
        ) % {"rolls": found.rolls, "minimum": MINIMUM_ROLLS, "per_face": MIN_EXPECTED_PER_FACE}
    chance = _percent(found.p_value)
    if found.verdict is Verdict.SUSPICIOUS:
        return _(
            "Suspicious: a fair die would stray this far from even faces in %(chance)s of such "
            "series, less than once in a thousand. Check the die, or how it is rolled."
        ) % {"chance": chance}
    if found.verdict is Verdict.WATCH:
        return _(
            "Unusual: a fair die strays this far in %(chance)s of such series. Worth watching, "
            "not a proof: among many dice looked at, some look like this by chance."
        ) % {"chance": chance}
    return _(
        "Nothing says this die is unfair: a fair die strays this far or further in %(chance)s of "
        "such series. That is not a proof that it is fair, only that it has not shown otherwise."
    ) % {"chance": chance}
