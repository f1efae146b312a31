"""Falls (R27), illness (R28, R30) and remedies (R29)."""

from __future__ import annotations

import random
from collections.abc import Iterable

from .availability import require_fall, require_fall_ill, require_remedy
from .checks import AGILITE, CONSTITUTION, roll_check
from .dice import D4, D10, DiceExpr, DiceSource, parse_dice
from .errors import CannotSoften, InvalidFall
from .health import apply_damage, kill
from .outcome import Draft, Outcome
from .results import Modifier
from .state import DEFAULT_RULESET, CampaignState, Illness, Ruleset, Severity, Soften, Surface
from .text import SEVERITY_TEXT, SURFACE_TEXT, count_en, count_fr

# R27: storeys -> (damage, malus to soften).
FALL_TABLE: dict[int, tuple[DiceExpr, int]] = {
    1: (D10, 0),
    2: (parse_dice("1d10+5"), 2),
    3: (parse_dice("1d10+10"), 4),
    4: (parse_dice("1d10+20"), 6),
    5: (parse_dice("1d10+30"), 8),
}
IN_MOTION = (D10, 3)
DEADLY_STOREYS = 6
SURFACE_SHIFT = {Surface.NORMAL: 0, Surface.ROUGH: 1, Surface.SOFT: -1}
ILLNESS_LONG = parse_dice("1d4+1")  # R28, failed Constitution test
ILLNESS_SHORT = parse_dice("1d4-1")  # R28, passed Constitution test


def fall_height(*, storeys: int = 0, in_motion: bool = False, surface: Surface) -> int:
    """Storeys after the surface shift; "in motion" shifts as a 1-storey fall (R27 Choice)."""
    return (1 if in_motion else storeys) + SURFACE_SHIFT[surface]


def fall(
    campaign: CampaignState,
    key: str,
    *,
    rng: random.Random | DiceSource,
    storeys: int = 0,
    in_motion: bool = False,
    surface: Surface = Surface.NORMAL,
    soften: Soften = Soften.NONE,
    difficulty: int | None = None,
    modifiers: Iterable[Modifier] = (),
    cause: str = "chute",
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R27: a fall of `storeys` (≥ 1) or from something `in_motion`, on `surface`.

    Softening by spell always works; by Agilité (ADR) test it takes the row's malus.
    Softened damage is halved, rounded up. Damage ignores PA, then R10 applies as for any
    damage. Six storeys or more kill, and cannot be softened.
    """
    character = campaign.character(key)
    require_fall(character)
    if storeys < 0 or in_motion == (storeys > 0):
        raise InvalidFall(
            f"Chute invalide : {count_fr(storeys, 'étage', 'étages')} ; donnez au moins 1 étage, "
            "ou « en mouvement ».",
            f"Invalid fall: {count_en(storeys, 'storey', 'storeys')}; give at least 1 storey, "
            "or 'in motion'.",
        )
    height = fall_height(storeys=storeys, in_motion=in_motion, surface=surface)
    if height >= DEADLY_STOREYS and soften is not Soften.NONE:
        raise CannotSoften(
            f"Une chute de {height} étages ne peut pas être amortie (R27).",
            f"A fall of {height} storeys cannot be softened (R27).",
        )
    draft = Draft(campaign, rng, ruleset)
    what_fr = (
        "chute en mouvement" if in_motion else f"chute de {count_fr(storeys, 'étage', 'étages')}"
    )
    what_en = "fall in motion" if in_motion else f"fall of {count_en(storeys, 'storey', 'storeys')}"
    ground_fr, ground_en = SURFACE_TEXT[surface]
    draft.say(
        "R27",
        f"{what_fr}, {ground_fr} : compte pour {count_fr(height, 'étage', 'étages')}",
        f"{what_en}, {ground_en}: counts as {count_en(height, 'storey', 'storeys')}",
        key,
    )
    if height <= 0:
        draft.say("R27", "aucun dégât", "no damage", key)
    elif height >= DEADLY_STOREYS:
        kill(draft, key, "R27")
    else:
        unshifted_motion = in_motion and surface is Surface.NORMAL
        expr, malus = IN_MOTION if unshifted_motion else FALL_TABLE[height]
        softened = soften is Soften.SPELL
        if soften is Soften.ADR_TEST:
            penalty = (
                (Modifier("amortir la chute", -malus, "R27", "softening a fall"),) if malus else ()
            )
            softened = roll_check(
                draft,
                key,
                "ADR",
                skill=AGILITE,
                difficulty=difficulty,
                modifiers=(*penalty, *modifiers),
                rule_id="R27",
            ).success
        damage = draft.roll(expr, key=key, rule_id="R27", purpose="fall_damage")
        draft.roll_line(damage, "Dégâts de chute", "Fall damage")
        amount = -(-damage.total // 2) if softened else damage.total
        if softened:
            draft.say(
                "R27",
                f"chute amortie : {damage.total} / 2 = {amount}",
                f"softened fall: {damage.total} / 2 = {amount}",
                key,
            )
        apply_damage(draft, key, amount, ignores_pa=True, cause=cause, rule_id="R27")
    return draft.outcome()


def fall_ill(
    campaign: CampaignState,
    key: str,
    *,
    severity: Severity,
    rng: random.Random | DiceSource,
    name: str = "",
    difficulty: int | None = None,
    modifiers: Iterable[Modifier] = (),
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R28: Constitution (VAI) test; failure 1D4+1 days, success 1D4−1 (0: gone next morning).

    A new illness replaces the current one.
    """
    require_fall_ill(campaign.character(key))
    draft = Draft(campaign, rng, ruleset)
    passed = roll_check(
        draft,
        key,
        "VAI",
        skill=CONSTITUTION,
        difficulty=difficulty,
        modifiers=tuple(modifiers),
        rule_id="R28",
    ).success
    days = draft.roll(
        ILLNESS_SHORT if passed else ILLNESS_LONG, key=key, rule_id="R28", purpose="illness_days"
    )
    draft.roll_line(days, "Durée de la maladie (jours)", "Illness length (days)")
    draft.set(key, "illness", Illness(severity, days.total, name), "R28")
    fr, en = SEVERITY_TEXT[severity]
    draft.say(
        "R28",
        f"{fr} (−{int(severity)} à tous les tests) pour {count_fr(days.total, 'jour', 'jours')}",
        f"{en} (−{int(severity)} to all tests) for {count_en(days.total, 'day', 'days')}",
        key,
    )
    return draft.outcome()


def take_remedy(
    campaign: CampaignState,
    key: str,
    *,
    rng: random.Random | DiceSource,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R29 (and a clinic's concoctions, R19): the illness is 1D4 days shorter, never below 0."""
    character = campaign.character(key)
    require_remedy(character)
    illness: Illness = character.illness  # type: ignore[assignment]  # require_remedy
    draft = Draft(campaign, rng, ruleset)
    days = draft.roll(D4, key=key, rule_id="R29", purpose="remedy")
    draft.roll_line(days, "Remède (jours en moins)", "Remedy (days off)")
    left = max(0, illness.days_left - days.total)
    draft.set(key, "illness", Illness(illness.severity, left, illness.name), "R29")
    draft.say(
        "R29",
        f"maladie : {illness.days_left} → "
        + (count_fr(left, "jour", "jours") if left else "dernier jour (fin au prochain matin)"),
        f"illness: {illness.days_left} → "
        + (count_en(left, "day", "days") if left else "last day (over next morning)"),
        key,
    )
    return draft.outcome()
