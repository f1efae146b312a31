"""PV, Flux and the road through death's door (R1, R3, R10–R16, R26)."""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import datetime, timedelta

from .availability import (
    require_damage,
    require_end_coma,
    require_heal,
    require_restore_flux,
    require_revive,
    require_spend_flux,
    require_stabilise,
    require_wake,
)
from .checks import MEDECINE, SURVIE, plan_raw_check, require_conscious, roll_check, roll_planned
from .conditions import drop_conditions, effective, put_condition, rebudget
from .dice import D6, DiceSource
from .errors import (
    InvalidAmount,
    InvalidHealer,
    NotDue,
    NotEnoughFlux,
)
from .outcome import Draft, Outcome
from .results import Modifier
from .state import (
    CAUSE_DEATHS_DOOR,
    CAUSE_FLUX,
    DEFAULT_RULESET,
    SEQUEL_TABLE,
    CampaignState,
    CharacterState,
    Condition,
    ConditionKind,
    Ruleset,
    Sequel,
    Vital,
)
from .text import VITAL_TEXT, count_fr, number_fr

HOUR = timedelta(hours=1)
_TIMERS = ("coma_due", "next_coma_hour", "stabilised_at", "last_wake_try", "wake_tries_from")


def _require_amount(amount: int, what_fr: str, what_en: str) -> None:
    if amount < 0:
        raise InvalidAmount(
            f"{what_fr} ne peut pas être négatif ({number_fr(amount)}).",
            f"{what_en} cannot be negative ({amount}).",
        )


def capped(current: int, gain: int, maximum: int) -> int:
    """R1: a gain never raises a value above its maximum, nor lowers one already above it."""
    return max(current, min(maximum, current + gain))


def set_vital(draft: Draft, key: str, vital: Vital, rule_id: str, *, by_gm: bool = False) -> None:
    before = draft.char(key)
    draft.set(key, "vital", vital, rule_id, by_gm=by_gm)
    fr, en = VITAL_TEXT[vital]
    draft.say(rule_id, f"désormais {fr}", f"now {en}", key)
    rebudget(draft, key, before, rule_id)


def clear_timers(draft: Draft, key: str, rule_id: str, *, by_gm: bool = False) -> None:
    for name in _TIMERS:
        draft.set(key, name, None, rule_id, by_gm=by_gm)


def fall_into_coma(draft: Draft, key: str, rule_id: str) -> None:
    """R10/R11: the coma starts now; the first hourly loss comes an hour later."""
    clear_timers(draft, key, rule_id)
    draft.set(key, "next_coma_hour", draft.now + HOUR, rule_id)
    drop_conditions(draft, key, ConditionKind.EXTENUE, CAUSE_DEATHS_DOOR, "R26")
    set_vital(draft, key, Vital.COMA, rule_id)


def stabilise(draft: Draft, key: str, rule_id: str) -> None:
    """R12/R15: no more loss; waking tries (R13) may start at once."""
    clear_timers(draft, key, rule_id)
    draft.set(key, "stabilised_at", draft.now, rule_id)
    set_vital(draft, key, Vital.STABILISED, rule_id)


def kill(draft: Draft, key: str, rule_id: str) -> None:
    """R16: death is a state; the character stays in the campaign."""
    clear_timers(draft, key, rule_id)
    set_vital(draft, key, Vital.DEAD, rule_id)
    draft.rule("R16")


def _deaths_door(draft: Draft, key: str) -> None:
    """R10: PV just reached 0 or less: Survie (VAI) at once (or asked of the player, R34)."""
    if draft.leave_to_player("deaths_door", "R10", key, "Survie (VAI) à 0 PV", "Survival at 0 PV"):
        return
    if roll_check(draft, key, "VAI", skill=SURVIE, difficulty=None, rule_id="R10").success:
        draft.set(key, "coma_due", draft.now + draft.ruleset.coma_delay, "R10")
        put_condition(draft, key, Condition(ConditionKind.EXTENUE, CAUSE_DEATHS_DOOR), "R10")
        set_vital(draft, key, Vital.BORROWED_TIME, "R10")
    else:
        fall_into_coma(draft, key, "R10")


def deaths_door_test(
    campaign: CampaignState,
    key: str,
    *,
    rng: random.Random | DiceSource,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R10's Survie left to the player (R34), rolled now: the same test as at the damage."""
    character = campaign.character(key)
    if character.vital is not Vital.UP or character.pv > 0:
        raise NotDue(
            f"{character.label} n’attend plus de test de Survie à 0 PV (R10).",
            f"{character.label} no longer awaits a Survival test at 0 PV (R10).",
            rule_id="R10",
        )
    draft = Draft(campaign, rng, ruleset)
    _deaths_door(draft, key)
    return draft.outcome()


def set_pv(draft: Draft, key: str, value: int, rule_id: str) -> None:
    """Set PV and follow where they cross 0 (R10 both ways, R15), or a stabilised character
    hurt again (R11/R12: back in a coma unless the campaign keeps them stabilised)."""
    character = draft.char(key)
    draft.set(key, "pv", value, rule_id)
    if value > 0:
        if character.vital is Vital.BORROWED_TIME:
            draft.say("R10", "PV au-dessus de 0 : le coma est évité", "PV above 0: no coma", key)
            clear_timers(draft, key, "R10")
            drop_conditions(draft, key, ConditionKind.EXTENUE, CAUSE_DEATHS_DOOR, "R26")
            set_vital(draft, key, Vital.UP, "R10")
        elif character.vital is Vital.COMA:
            stabilise(draft, key, "R15")
    elif character.vital is Vital.UP and value < character.pv:
        _deaths_door(draft, key)
    # A wound that leaves PV above 0 (stabilised by healing, R15) is not here on purpose:
    # R15 would count the character stabilised again at once.
    elif (
        character.vital is Vital.STABILISED
        and value < character.pv
        and draft.ruleset.damage_ends_stabilisation
    ):
        draft.say(
            "R12",
            "blessé·e de nouveau : n’est plus stabilisé·e",
            "hurt again: no longer stabilised",
            key,
        )
        fall_into_coma(draft, key, "R12")


def set_flux(draft: Draft, key: str, value: int, rule_id: str) -> None:
    """Set Flux and keep R26's Exténué (cause flux) in step with it."""
    draft.set(key, "flux", value, rule_id)
    if value == 0:
        put_condition(draft, key, Condition(ConditionKind.EXTENUE, CAUSE_FLUX), "R26")
    else:
        drop_conditions(draft, key, ConditionKind.EXTENUE, CAUSE_FLUX, "R26")


def apply_damage(
    draft: Draft, key: str, amount: int, *, ignores_pa: bool, cause: str, rule_id: str
) -> None:
    character = draft.char(key)
    pa = 0 if ignores_pa else effective(character).pa
    taken = max(0, amount - pa)
    after = character.pv - taken
    damage_fr = count_fr(amount, "dégât", "dégâts")
    if ignores_pa:
        fr = f"{damage_fr} (PA ignorés) ; PV {number_fr(character.pv)} → {number_fr(after)}"
        en = f"{amount} damage (ignores PA); PV {character.pv} → {after}"
    else:
        fr = f"{damage_fr} − {pa} PA = {taken} ; PV {number_fr(character.pv)} → {number_fr(after)}"
        en = f"{amount} damage − {pa} PA = {taken}; PV {character.pv} → {after}"
    draft.say(rule_id, fr, en, key)
    if taken:
        if cause and after <= 0:
            draft.set(key, "down_cause", cause, rule_id)
        set_pv(draft, key, after, rule_id)


def take_damage(
    campaign: CampaignState,
    key: str,
    amount: int,
    *,
    rng: random.Random | DiceSource,
    ignores_pa: bool = False,
    cause: str = "",
    ruleset: Ruleset = DEFAULT_RULESET,
    defer: Iterable[str] = (),
) -> Outcome:
    """Damage minus effective PA (R3, R20), then R10 if PV reach 0 or less.

    `cause` (a burn, a bite…) is kept as the cause of a later sequel (R14). R34: for a
    character of `defer`, R10's Survie is left to the player (`Outcome.due`, `deaths_door_test`).
    """
    _require_amount(amount, "Les dégâts", "Damage")
    require_damage(campaign.character(key))
    draft = Draft(campaign, rng, ruleset)
    draft.defer = frozenset(defer)
    apply_damage(draft, key, amount, ignores_pa=ignores_pa, cause=cause, rule_id="R3")
    return draft.outcome()


def heal(
    campaign: CampaignState, key: str, amount: int, *, ruleset: Ruleset = DEFAULT_RULESET
) -> Outcome:
    """Heal PV up to the maximum (R1); PV above 0 end borrowed time (R10) or stabilise (R15)."""
    _require_amount(amount, "Les soins", "Healing")
    character = campaign.character(key)
    require_heal(character)
    draft = Draft(campaign, None, ruleset)
    after = capped(character.pv, amount, character.pv_max)
    draft.say(
        "R1",
        f"soins {amount} ; PV {number_fr(character.pv)} → {number_fr(after)} "
        f"(max {character.pv_max})",
        f"healing {amount}; PV {character.pv} → {after} (max {character.pv_max})",
        key,
    )
    set_pv(draft, key, after, "R1")
    return draft.outcome()


def spend_flux(
    campaign: CampaignState, key: str, amount: int, *, ruleset: Ruleset = DEFAULT_RULESET
) -> Outcome:
    """Spend Flux; never below 0 (R1); Flux 0 makes the character Exténué (R26)."""
    _require_amount(amount, "Le Flux dépensé", "Flux spent")
    character = campaign.character(key)
    require_spend_flux(character)
    if amount > character.flux:
        raise NotEnoughFlux(
            f"{character.label} n’a que {character.flux} Flux (il en faut {amount}).",
            f"{character.label} has only {character.flux} Flux ({amount} needed).",
        )
    draft = Draft(campaign, None, ruleset)
    after = character.flux - amount
    draft.say(
        "R1",
        f"dépense {amount} Flux ; Flux {character.flux} → {after}",
        f"spends {amount} Flux; Flux {character.flux} → {after}",
        key,
    )
    set_flux(draft, key, after, "R1")
    return draft.outcome()


def restore_flux(
    campaign: CampaignState, key: str, amount: int, *, ruleset: Ruleset = DEFAULT_RULESET
) -> Outcome:
    """Restore Flux up to the maximum (R1); above 0 ends Exténué from Flux (R26)."""
    _require_amount(amount, "Le Flux rendu", "Flux restored")
    character = campaign.character(key)
    require_restore_flux(character)
    draft = Draft(campaign, None, ruleset)
    after = capped(character.flux, amount, character.flux_max)
    draft.say(
        "R1",
        f"récupère {amount} Flux ; Flux {character.flux} → {after} (max {character.flux_max})",
        f"regains {amount} Flux; Flux {character.flux} → {after} (max {character.flux_max})",
        key,
    )
    set_flux(draft, key, after, "R1")
    return draft.outcome()


def end_scene(campaign: CampaignState, *, ruleset: Ruleset = DEFAULT_RULESET) -> Outcome:
    """R32 next scene; R10: whoever is still on borrowed time falls into a coma."""
    draft = Draft(campaign, None, ruleset)
    draft.say("R32", f"fin de la scène {campaign.scene}", f"end of scene {campaign.scene}")
    draft.set_campaign("scene", campaign.scene + 1, "R32")
    for character in campaign.characters:
        if character.vital is Vital.BORROWED_TIME:
            fall_into_coma(draft, character.key, "R10")
    return draft.outcome()


def coma_hour(draft: Draft, key: str) -> None:
    """R11: one hour in a coma: −1 PV, then past −PV > VAI a Survie test; failure is death."""
    coma_hour_loss(draft, key)
    coma_hour_test(draft, key)


def coma_hour_loss(draft: Draft, key: str) -> None:
    """R11's hour without its test: the next hour set, −1 PV. The clock applies it before it
    stops for a player's Survie, so the card shows the PV the test is asked at."""
    character = draft.char(key)
    draft.set(key, "next_coma_hour", draft.now + HOUR, "R11")
    draft.say("R11", "une heure de coma : −1 PV", "an hour in a coma: −1 PV", key)
    set_pv(draft, key, character.pv - 1, "R11")


def beyond_threshold(character: CharacterState, ruleset: Ruleset) -> bool:
    """R11: in a coma with negative PV beyond VAI (−PV > VAI): each hour asks a Survie."""
    return character.vital is Vital.COMA and -character.pv > character.stat("VAI", ruleset)


def coma_hour_test(draft: Draft, key: str) -> None:
    """R11's Survie for the hour just lost, when past the threshold; failure is death."""
    if beyond_threshold(draft.char(key), draft.ruleset):
        survie = roll_check(draft, key, "VAI", skill=SURVIE, difficulty=None, rule_id="R11")
        if not survie.success:
            kill(draft, key, "R11")


def wake_anchor(character: CharacterState) -> datetime | None:
    """R13: the moment the automatic tries count from: the stabilisation, the last try (by
    hand or by the clock) or where the clock left off while they were off, whichever is last."""
    moments = [
        m
        for m in (character.stabilised_at, character.last_wake_try, character.wake_tries_from)
        if m is not None
    ]
    return max(moments, default=None)


def wake_try(
    draft: Draft,
    key: str,
    *,
    cause: str,
    difficulty: int | None,
    modifiers: tuple[Modifier, ...],
) -> None:
    """R13: Survie (VAI) to wake; success: PV at least 1 and a sequel (R14)."""
    draft.set(key, "last_wake_try", draft.now, "R13")
    if roll_check(
        draft, key, "VAI", skill=SURVIE, difficulty=difficulty, modifiers=modifiers, rule_id="R13"
    ).success:
        character = draft.char(key)
        d6 = draft.roll(D6, key=key, rule_id="R14", purpose="sequel")
        draft.roll_line(d6, "Séquelle (D6)", "Sequel (D6)")
        stat = SEQUEL_TABLE[d6.total]
        sequel = Sequel(stat, cause or character.down_cause, d6.total, draft.now)
        draft.set(key, "sequels", (*character.sequels, sequel), "R14")
        # The clock's own tries (R13 each hour) know no more than the damage's cause.
        named_fr = f" « {sequel.cause} »" if sequel.cause else ""
        named_en = f" '{sequel.cause}'" if sequel.cause else ""
        draft.say(
            "R14",
            f"séquelle{named_fr} : {stat} −1, Survie −1 (R7)",
            f"sequel{named_en}: {stat} −1, Survival −1 (R7)",
            key,
        )
        draft.set(key, "pv", max(character.pv, 1), "R13")
        draft.set(key, "down_cause", "", "R13")
        clear_timers(draft, key, "R13")
        set_vital(draft, key, Vital.UP, "R13")


def attempt_stabilise(
    campaign: CampaignState,
    key: str,
    *,
    rng: random.Random | DiceSource,
    healer_key: str | None = None,
    healer_esp: int | None = None,
    modifiers: Iterable[Modifier] = (),
    difficulty: int | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R12: someone else's Médecine (ESP) test; each failure costs the patient 1 PV.

    Give the healer as a character of the state (`healer_key`: its ESP, its maluses and R6
    apply) or as a number from outside (`healer_esp`, plus `modifiers`). Suitable equipment
    is the GM's call before this is offered.
    """
    patient = campaign.character(key)
    require_stabilise(patient)
    if (healer_key is None) == (healer_esp is None) or healer_key == key:
        raise InvalidHealer(
            "Stabiliser demande quelqu’un d’autre : un personnage soignant ou sa valeur d’ESP.",
            "Stabilising needs someone else: a healer character or their ESP value.",
        )
    draft = Draft(campaign, rng, ruleset)
    if healer_key is not None:
        require_conscious(campaign.character(healer_key))
        result = roll_check(
            draft,
            healer_key,
            "ESP",
            skill=MEDECINE,
            difficulty=difficulty,
            modifiers=tuple(modifiers),
            rule_id="R12",
        )
    else:
        plan = plan_raw_check(
            key=None,
            skill=MEDECINE,
            stat="ESP",
            stat_value=int(healer_esp),  # type: ignore[arg-type]  # checked above
            modifiers=tuple(modifiers),
            odd_zero=False,
            difficulty=difficulty,
            rule_id="R12",
            ruleset=draft.ruleset,
        )
        result = roll_planned(draft, plan)
    if result.success:
        stabilise(draft, key, "R12")
    else:
        draft.say("R12", "échec des soins : −1 PV", "treatment failed: −1 PV", key)
        set_pv(draft, key, patient.pv - 1, "R12")
    return draft.outcome()


def attempt_wake(
    campaign: CampaignState,
    key: str,
    *,
    rng: random.Random | DiceSource,
    sequel_cause: str = "",
    difficulty: int | None = None,
    modifiers: Iterable[Modifier] = (),
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R13 by hand: a stabilised character tries to wake, at most once per game hour.

    `sequel_cause` is the GM's text for the sequel (R14); by default the damage's cause (the
    action's form asks for one when that is unknown: play/actions.py WakeForm).
    """
    require_wake(campaign.character(key), campaign.clock)
    draft = Draft(campaign, rng, ruleset)
    wake_try(draft, key, cause=sequel_cause, difficulty=difficulty, modifiers=tuple(modifiers))
    return draft.outcome()


def gm_end_coma(
    campaign: CampaignState,
    key: str,
    *,
    pv: int | None = None,
    ruleset: Ruleset = DEFAULT_RULESET,
) -> Outcome:
    """R15: the GM ends a coma by hand (PV at least 1 unless `pv` is given, ≥ 1)."""
    character = campaign.character(key)
    require_end_coma(character)
    if pv is not None and pv < 1:
        raise InvalidAmount(
            "Pour sortir du coma, il faut au moins 1 PV.", "Leaving a coma needs at least 1 PV."
        )
    draft = Draft(campaign, None, ruleset)
    draft.say("R15", "le MJ met fin au coma", "the GM ends the coma", key)
    draft.set(key, "pv", max(character.pv, 1) if pv is None else pv, "R15", by_gm=True)
    clear_timers(draft, key, "R15", by_gm=True)
    set_vital(draft, key, Vital.UP, "R15", by_gm=True)
    return draft.outcome()


def gm_revive(
    campaign: CampaignState, key: str, *, pv: int = 1, ruleset: Ruleset = DEFAULT_RULESET
) -> Outcome:
    """R16: only the GM brings a dead character back, by hand, with `pv` PV (≥ 1)."""
    character = campaign.character(key)
    require_revive(character)
    if pv < 1:
        raise InvalidAmount(
            "Un personnage ramené à la vie a au moins 1 PV.",
            "A revived character has at least 1 PV.",
        )
    draft = Draft(campaign, None, ruleset)
    draft.say("R16", "le MJ ramène le personnage à la vie", "the GM brings the character back", key)
    draft.set(key, "pv", pv, "R16", by_gm=True)
    set_vital(draft, key, Vital.UP, "R16", by_gm=True)
    return draft.outcome()
