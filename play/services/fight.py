"""Fights (R33): the GM's order, one turn each per round, budgets reset each round."""

from __future__ import annotations

from collections.abc import Iterable

from play.services.runner import Result, Table, on_party, require_clock_free, run
from rules import engine

# ---------------------------------------------------------------------------------------------
# Fights (R33): the GM's order, one turn each per round, budgets reset each round


def _keys(character_ids: Iterable[int]) -> list[str]:
    return [str(pk) for pk in character_ids]


def fight_start(
    *,
    campaign_id: int,
    actor,
    character_ids: Iterable[int],
    surprised_ids: Iterable[int] = (),
    visibility: str | None = None,
) -> Result:
    """R33: a fight in the GM's order `character_ids` (no initiative roll); `surprised_ids`
    become Surpris until the end of round 1 (R25). Refused while a fight is running."""
    character_ids, surprised_ids = list(character_ids), list(surprised_ids)
    order, surprised = _keys(character_ids), _keys(surprised_ids)
    return run(
        campaign_id=campaign_id,
        character_ids=[*character_ids, *surprised_ids],
        fighting=True,
        actor=actor,
        action="fight_start",
        operation=lambda t: engine.start_fight(
            t.state, order, surprised=surprised, ruleset=t.ruleset
        ),
        visibility=visibility,
    )


def fight_next_turn(
    *,
    campaign_id: int,
    actor,
    dice: Iterable[int] | None = None,
    visibility: str | None = None,
) -> Result:
    """R33: the next turn, or a new round; a round the campaign gives a length moves the
    clock (R32), so every character is loaded, as for the clock. R34: such a round waits
    while a player's roll holds the clock, and a player's roll due in it stops the clock
    there (the campaign's setting); the new round begins once it is answered."""

    def operation(t: Table) -> engine.Outcome:
        if engine.moves_clock(t.state, t.ruleset):
            require_clock_free(t.campaign, actor)
        return engine.next_turn(t.state, rng=t.rng, ruleset=t.ruleset, defer=t.defer)

    return on_party(
        campaign_id,
        "fight_next_turn",
        operation,
        actor=actor,
        dice=dice,
        visibility=visibility,
        ask_players=None,
    )


def fight_spend(*, character_id: int, actor, what: str, visibility: str | None = None) -> Result:
    """R33: the character spends one "action" or one "reflex" of this round's budget."""
    key = str(character_id)
    return run(
        character_ids=[character_id],
        fighting=True,
        actor=actor,
        action="fight_spend",
        operation=lambda t: engine.spend(t.state, key, what, ruleset=t.ruleset),
        visibility=visibility,
    )


def fight_set_order(
    *, campaign_id: int, actor, character_ids: Iterable[int], visibility: str | None = None
) -> Result:
    """R33: the GM reorders the fight, brings combatants in or takes some out."""
    character_ids = list(character_ids)
    order = _keys(character_ids)
    return run(
        campaign_id=campaign_id,
        character_ids=character_ids,
        fighting=True,
        actor=actor,
        action="fight_set_order",
        operation=lambda t: engine.set_order(t.state, order, ruleset=t.ruleset),
        visibility=visibility,
    )


def fight_join(
    *,
    campaign_id: int,
    actor,
    character_id: int,
    place: int | None = None,
    visibility: str | None = None,
) -> Result:
    """R33: a character joins the running fight (reinforcements) at `place` (1 is first;
    None: last); nobody else's turn changes, and the newcomer's first turn comes this round
    only when its place comes after the current turn's (`engine.join_fight`)."""
    key = str(character_id)
    return run(
        campaign_id=campaign_id,
        character_ids=[character_id],
        fighting=True,
        actor=actor,
        action="fight_join",
        operation=lambda t: engine.join_fight(t.state, key, place=place, ruleset=t.ruleset),
        visibility=visibility,
    )


def fight_leave(
    *, campaign_id: int, actor, character_id: int, visibility: str | None = None
) -> Result:
    """R33: a combatant leaves the running fight (fled, out of the story); when it was its
    turn, the turn passes to the next who has not had it this round (`engine.leave_fight`)."""
    key = str(character_id)
    return run(
        campaign_id=campaign_id,
        character_ids=[character_id],
        fighting=True,
        actor=actor,
        action="fight_leave",
        operation=lambda t: engine.leave_fight(t.state, key, ruleset=t.ruleset),
        visibility=visibility,
    )


def fight_end(*, campaign_id: int, actor, visibility: str | None = None) -> Result:
    """R33: the fight ends; the Surpris its start gave ends with it (R25)."""
    return run(
        campaign_id=campaign_id,
        character_ids=[],
        fighting=True,
        actor=actor,
        action="fight_end",
        operation=lambda t: engine.end_fight(t.state, ruleset=t.ruleset),
        visibility=visibility,
    )
