"""The dice's own story: per roller and per character, tests made, successes against what each
roll's exact odds promised, natural 1s and 20s, Survie passed and failed; the D20's faces,
server dice and dice typed in apart, each with a chi-square verdict (rules/engine/fairness.py).

Only what stands counts (an action undone did not happen), and only what the viewer may read:
the entries come from `journal.visibility.visible_entries`, and a sealed roll counts for a
player once the GM has revealed it (`readable_results`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from campaign.models import Membership
from journal.models import EntryKind
from journal.undone import undone_batches
from journal.visibility import readable_results, visible_entries
from rules.engine import parse_dice
from rules.engine.errors import RuleError
from rules.engine.fairness import FACES, MINIMUM_ROLLS, Fairness, fairness

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
    def d20_rolls(self) -> int:
        return sum(self.server_faces) + sum(self.typed_faces)


@dataclass
class DiceStory:
    rollers: list[Tally]
    characters: list[Tally]
    server: Tally  # every D20 the server rolled
    typed: Tally  # every D20 a person typed in
    minimum: int = MINIMUM_ROLLS


def passing_faces(roll: dict, natural_extremes: bool) -> int:
    """How many of the 20 faces pass this test: as written with the roll; for a roll written
    before the odds were kept, rebuilt from its terms (R6 is known only from an odd face, R5's
    option is the campaign's as it is now)."""
    kept = roll.get("passing_faces")
    if isinstance(kept, int):
        return kept
    bonus = roll.get("stat_value", 0) + sum(m.get("value", 0) for m in roll.get("modifiers", ()))
    odd_zero = roll.get("die_rule") == "R6"
    passing = 0
    for natural in range(1, FACES + 1):
        if natural_extremes and natural in (1, FACES):
            passing += natural == FACES
            continue
        value = 0 if odd_zero and natural % 2 else natural
        passing += value + bonus >= roll.get("difficulty", 0)
    return passing


def d20_faces(roll: dict) -> list[int]:
    """The D20 faces a roll entry holds: a test's natural die, or a plain roll's d20s."""
    if "natural" in roll:
        return [roll["natural"]]
    try:
        expr = parse_dice(roll.get("expression", ""))
    except RuleError:
        return []
    return list(roll.get("dice", ())) if expr.sides == FACES else []


def dice_story(membership: Membership) -> DiceStory:
    """The campaign's dice as `membership` may see them, what stands only."""
    campaign = membership.campaign
    entries = visible_entries(membership).filter(kind=EntryKind.ROLL, field="")
    entries = readable_results(membership, entries)
    undone = undone_batches(campaign.pk)
    if undone:
        entries = entries.exclude(batch__in=undone)
    roles = {
        m.user_id: ("gm" if m.is_gm else "player")
        for m in campaign.memberships.order_by().only("user_id", "role")
    }
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
        odds = (
            Fraction(passing_faces(roll, campaign.natural_extremes), FACES) if is_test else None
        )
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
    order = {"gm": 0, "player": 1, SERVER: 2}
    return DiceStory(
        rollers=sorted(rollers.values(), key=lambda t: (order[t.role], t.label.lower())),
        characters=sorted(characters.values(), key=lambda t: t.label.lower()),
        server=server,
        typed=typed,
    )
