"""Free rolls (R9): a dice expression typed by the GM, or by a player for their own character
where the campaign lets players roll, logged like any roll with its visibility."""

from __future__ import annotations

from collections.abc import Iterable

from campaign.models import Campaign
from journal import audit
from journal.models import EntryKind
from play.services.runner import Result, Table, run
from rules import engine


def free_roll(
    *,
    campaign_id: int,
    actor,
    expression: str,
    character_id: int | None = None,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """Roll `expression` (« 2d6+3 », « 1d20+ADR »: a statistic counts the character's
    effective value, R14), for `character_id` or for nobody in particular; `dice` typed in
    from physical dice (R9). Refused (`InvalidDiceExpression`) before anything is written
    when the expression is not one. One audit entry, a roll, seen by `visibility`."""
    stats = Campaign.objects.values_list("stats", flat=True).get(pk=campaign_id)
    expr = engine.parse_free_roll(expression, stats)
    key = None if character_id is None else str(character_id)
    made: list[engine.FreeRoll] = []

    def operation(t: Table) -> engine.Outcome:
        character = None if key is None else t.state.character(key)
        rolled = engine.roll_free(expr, t.rng, character=character, ruleset=t.ruleset)
        made.append(rolled)
        typed = " [dés saisis]" if rolled.typed_in else ""
        typed_en = " [typed-in dice]" if rolled.typed_in else ""
        who_fr = f"{character.label} — " if character else ""
        line = engine.Line(
            f"{who_fr}jet libre {rolled.text}{typed}",
            f"{who_fr}free roll {rolled.text}{typed_en}",
            "R9",
            key,
            t.state.clock,
        )
        return engine.Outcome(t.state, rules=("R9",), lines=(line,))

    def drafts(action, outcome, rows) -> list[audit.Draft]:
        (rolled,) = made
        return [
            audit.Draft(
                kind=EntryKind.ROLL,
                action=action,
                rule_id="R9",
                character=rows.get(key) if key else None,
                game_time=outcome.state.clock,
                roll={
                    "expression": str(rolled.expr),
                    "dice": list(rolled.dice),
                    "total": rolled.total,
                    "purpose": "free",
                },
                typed_in=rolled.typed_in,
                text_fr=f"R9 · Jet libre {rolled.text}",
                text_en=f"R9 · Free roll {rolled.text}",
            )
        ]

    return run(
        campaign_id=campaign_id,
        actor=actor,
        action="free_roll",
        operation=operation,
        character_ids=[] if character_id is None else [character_id],
        dice=dice,
        visibility=visibility,
        drafts=drafts,
    )
