"""The GM's actions on one character: a form each, and the engine operation it asks for.

A view looks an action up by name, validates its form, and hands `operation(form)` to
`play.services.apply`. Adding an action is adding an entry here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from django import forms
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext_lazy as _

from campaign.models import Visibility
from characters.models import ConditionKind, Severity
from rules import engine

MAX_AMOUNT = 999


class DiceField(forms.CharField):
    """Physical dice typed in by a person (R9): "14" or "3, 5"; empty lets the server roll."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", 60)
        kwargs.setdefault("label", _("Typed-in dice (optional)"))
        kwargs.setdefault(
            "help_text", _("Leave empty for a server roll, or type your dice: 14 or 3, 5.")
        )
        super().__init__(**kwargs)

    def to_python(self, value):
        text = super().to_python(value)
        values = []
        for part in text.replace(",", " ").split():
            if not part.isdigit() or not 1 <= int(part) <= 1000:
                raise forms.ValidationError(
                    _("“%(part)s” is not a die value: type whole numbers such as 14 or 3, 5.")
                    % {"part": part}
                )
            values.append(int(part))
        return values


class ActionForm(forms.Form):
    """Fields every action has: who sees the result, and dice typed in by hand."""

    rolls = False  # whether the action may roll dice (and so take typed-in dice)

    visibility = forms.ChoiceField(label=_("Visible to"), choices=Visibility.choices)

    def __init__(self, *args, campaign, character=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.character = character
        self.fields["visibility"].initial = campaign.default_roll_visibility
        if self.rolls:
            self.fields["dice"] = DiceField()

    def character_ids(self) -> list[int]:
        """The characters the operation reads or changes (locked by the service)."""
        return [self.character.pk]

    def common_fields(self):
        return [self[name] for name in ("visibility", "dice") if name in self.fields]

    def typed_dice(self) -> list[int]:
        return self.cleaned_data.get("dice") or []


def amount_field(label):
    return forms.IntegerField(label=label, min_value=0, max_value=MAX_AMOUNT)


class DamageForm(ActionForm):
    rolls = True  # reaching 0 PV makes a Survie test (R10)
    amount = amount_field(_("Damage"))
    ignores_pa = forms.BooleanField(label=_("Ignores PA"), required=False)
    cause = forms.CharField(label=_("Cause (for a later sequel)"), max_length=200, required=False)

    def operation(self):
        data = self.cleaned_data
        return lambda state, ruleset, rng: engine.take_damage(
            state,
            str(self.character.pk),
            data["amount"],
            rng=rng,
            ignores_pa=data["ignores_pa"],
            cause=data["cause"],
            ruleset=ruleset,
        )


class AmountForm(ActionForm):
    amount = amount_field(_("Amount"))
    engine_function: Callable = None

    def operation(self):
        function = type(self).engine_function
        return lambda state, ruleset, rng: function(
            state, str(self.character.pk), self.cleaned_data["amount"], ruleset=ruleset
        )


class HealForm(AmountForm):
    engine_function = staticmethod(engine.heal)


class SpendFluxForm(AmountForm):
    engine_function = staticmethod(engine.spend_flux)


class RestoreFluxForm(AmountForm):
    engine_function = staticmethod(engine.restore_flux)


class CheckForm(ActionForm):
    rolls = True
    stat = forms.ChoiceField(label=_("Statistic"))
    skill = forms.CharField(label=_("Skill or test name"), max_length=40, required=False)
    difficulty = forms.IntegerField(label=_("Difficulty"), min_value=1, max_value=60)
    modifier = forms.IntegerField(
        label=_("GM's modifier"), min_value=-20, max_value=20, initial=0, required=False
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["stat"].choices = [(code, code) for code in self.campaign.stats]
        self.fields["difficulty"].initial = self.campaign.default_difficulty

    def modifiers(self):
        value = self.cleaned_data.get("modifier") or 0
        return (engine.Modifier("MJ", value, None, "GM"),) if value else ()

    def check_arguments(self):
        data = self.cleaned_data
        return {
            "skill": data["skill"] or None,
            "difficulty": data["difficulty"],
            "modifiers": self.modifiers(),
        }

    def operation(self):
        return lambda state, ruleset, rng: engine.check(
            state,
            str(self.character.pk),
            self.cleaned_data["stat"],
            rng=rng,
            ruleset=ruleset,
            **self.check_arguments(),
        )


class ConditionForm(ActionForm):
    kind = forms.ChoiceField(label=_("Condition"), choices=ConditionKind.choices)
    remove = False

    def operation(self):
        kind = engine.ConditionKind(self.cleaned_data["kind"])
        function = engine.remove_condition if self.remove else engine.add_condition
        return lambda state, ruleset, rng: function(
            state, str(self.character.pk), kind, ruleset=ruleset
        )


class RemoveConditionForm(ConditionForm):
    remove = True


class StabiliseForm(ActionForm):
    rolls = True
    healer = forms.ModelChoiceField(label=_("Healer"), queryset=None, required=False)
    healer_esp = forms.IntegerField(
        label=_("…or the healer's ESP (someone not in the list)"),
        min_value=-10,
        max_value=30,
        required=False,
    )
    difficulty = forms.IntegerField(label=_("Difficulty"), min_value=1, max_value=60)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["healer"].queryset = self.campaign.characters.exclude(pk=self.character.pk)
        self.fields["difficulty"].initial = self.campaign.default_difficulty

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("healer") and cleaned.get("healer_esp") is None:
            raise forms.ValidationError(
                _("Choose the healer, or give the ESP of someone outside the list (R12).")
            )
        return cleaned

    def operation(self):
        data = self.cleaned_data
        healer = data.get("healer")
        return lambda state, ruleset, rng: engine.attempt_stabilise(
            state,
            str(self.character.pk),
            rng=rng,
            healer_key=str(healer.pk) if healer else None,
            healer_esp=None if healer else data["healer_esp"],
            difficulty=data["difficulty"],
            ruleset=ruleset,
        )

    def character_ids(self):
        healer = self.cleaned_data.get("healer")
        return [self.character.pk] + ([healer.pk] if healer else [])


class WakeForm(ActionForm):
    rolls = True
    sequel_cause = forms.CharField(
        label=_("The sequel's trauma (R14)"),
        max_length=200,
        required=False,
        help_text=_("A burn's pain, a bloody cough… Empty: what knocked the character out."),
    )

    def operation(self):
        return lambda state, ruleset, rng: engine.attempt_wake(
            state,
            str(self.character.pk),
            rng=rng,
            sequel_cause=self.cleaned_data["sequel_cause"],
            ruleset=ruleset,
        )


class EndComaForm(ActionForm):
    def operation(self):
        return partial(_no_rng, engine.gm_end_coma, str(self.character.pk))


class ReviveForm(ActionForm):
    pv = forms.IntegerField(label=_("PV on coming back"), min_value=1, max_value=MAX_AMOUNT)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # R1: never above the maximum; gm_revive does not cap and the database would refuse.
        field = self.fields["pv"]
        field.max_value = self.character.pv_max
        field.validators.append(MaxValueValidator(self.character.pv_max))
        field.widget.attrs["max"] = self.character.pv_max

    def operation(self):
        return partial(
            _no_rng, engine.gm_revive, str(self.character.pk), pv=self.cleaned_data["pv"]
        )


def _no_rng(function, key, state, ruleset, rng, **kwargs):
    return function(state, key, ruleset=ruleset, **kwargs)


class FallForm(ActionForm):
    rolls = True
    storeys = forms.IntegerField(
        label=_("Storeys (about 3 m each)"), min_value=0, max_value=50, required=False
    )
    in_motion = forms.BooleanField(
        label=_("In motion (a galloping horse…) instead of a height"), required=False
    )
    surface = forms.ChoiceField(
        label=_("Surface"),
        choices=[
            ("normal", _("Normal")),
            ("rough", _("Rough or steep (+1 storey)")),
            ("soft", _("Soft ground or water (−1 storey)")),
        ],
        initial="normal",
    )
    soften = forms.ChoiceField(
        label=_("Softened by"),
        choices=[
            ("none", _("Nothing")),
            ("spell", _("A spell")),
            ("adr_test", _("An Agilité (ADR) test, if the GM allows it")),
        ],
        initial="none",
    )
    cause = forms.CharField(label=_("Cause"), max_length=200, required=False)

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("in_motion") and cleaned.get("storeys") is None:
            raise forms.ValidationError(_("Give the height in storeys, or tick “in motion”."))
        return cleaned

    def operation(self):
        data = self.cleaned_data
        return lambda state, ruleset, rng: engine.fall(
            state,
            str(self.character.pk),
            storeys=data["storeys"] or 0,
            in_motion=data["in_motion"],
            surface=engine.Surface(data["surface"]),
            soften=engine.Soften(data["soften"]),
            **({"cause": data["cause"]} if data["cause"] else {}),
            rng=rng,
            ruleset=ruleset,
        )


class FallIllForm(ActionForm):
    rolls = True
    severity = forms.TypedChoiceField(
        label=_("Severity"), choices=Severity.choices, coerce=int, initial=Severity.MILD
    )
    name = forms.CharField(label=_("Illness"), max_length=120, required=False)

    def operation(self):
        data = self.cleaned_data
        return lambda state, ruleset, rng: engine.fall_ill(
            state,
            str(self.character.pk),
            severity=engine.Severity(data["severity"]),
            name=data["name"],
            rng=rng,
            ruleset=ruleset,
        )


class RemedyForm(ActionForm):
    rolls = True

    def operation(self):
        return lambda state, ruleset, rng: engine.take_remedy(
            state, str(self.character.pk), rng=rng, ruleset=ruleset
        )


@dataclass(frozen=True)
class Action:
    name: str
    label: str
    form: type[ActionForm]


QUICK_ACTIONS = {"damage", "heal", "spend_flux", "restore_flux"}  # buttons on every card

ACTIONS = {
    a.name: a
    for a in [
        Action("damage", _("Damage"), DamageForm),
        Action("heal", _("Heal"), HealForm),
        Action("spend_flux", _("Spend Flux"), SpendFluxForm),
        Action("restore_flux", _("Restore Flux"), RestoreFluxForm),
        Action("check", _("Test"), CheckForm),
        Action("add_condition", _("Add a condition"), ConditionForm),
        Action("remove_condition", _("Remove a condition"), RemoveConditionForm),
        Action("fall", _("Fall"), FallForm),
        Action("fall_ill", _("Fall ill"), FallIllForm),
        Action("remedy", _("Remedy"), RemedyForm),
        Action("stabilise", _("Stabilise"), StabiliseForm),
        Action("wake", _("Waking try"), WakeForm),
        Action("end_coma", _("End the coma (GM)"), EndComaForm),
        Action("revive", _("Bring back (GM)"), ReviveForm),
    ]
}


class PartyForm(ActionForm):
    """An action on the whole party; `character_ids` None means every character."""

    def character_ids(self):
        return None


class ClockForm(PartyForm):
    rolls = True  # coma hours and waking tries roll on the way (R11, R13)
    minutes = forms.IntegerField(
        label=_("Advance the clock by (minutes)"),
        min_value=1,
        max_value=60 * 24 * 30,
        required=False,
    )
    to_morning = forms.BooleanField(label=_("To the next morning"), required=False)

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("to_morning") and not cleaned.get("minutes"):
            raise forms.ValidationError(_("Give a number of minutes, or choose the next morning."))
        return cleaned

    def operation(self):
        data = self.cleaned_data
        if data["to_morning"]:
            return lambda state, ruleset, rng: engine.advance_to_morning(
                state, rng=rng, ruleset=ruleset
            )
        return lambda state, ruleset, rng: engine.advance_clock(
            state, rng=rng, minutes=data["minutes"], ruleset=ruleset
        )


class EndSceneForm(PartyForm):
    def operation(self):
        return lambda state, ruleset, rng: engine.end_scene(state, ruleset=ruleset)


class NightForm(PartyForm):
    rolls = True
    hours = forms.DecimalField(
        label=_("Length of the night (hours)"),
        min_value=0.5,
        max_value=24,
        decimal_places=1,
        initial=8,
    )
    poor_quality = forms.BooleanField(label=_("Poor sleep"), required=False)
    sleepers = forms.ModelMultipleChoiceField(
        label=_("Who sleeps"),
        queryset=None,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Empty: every conscious character."),
    )
    clinic = forms.ModelMultipleChoiceField(
        label=_("In a clinic (+1D4 PV, R19)"),
        queryset=None,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        characters = self.campaign.characters.order_by("kind", "name")
        self.fields["sleepers"].queryset = characters
        self.fields["clinic"].queryset = characters

    def operation(self):
        data = self.cleaned_data
        keys = [str(c.pk) for c in data["sleepers"]] or None
        return lambda state, ruleset, rng: engine.night_rest(
            state,
            hours=float(data["hours"]),
            rng=rng,
            keys=keys,
            poor_quality=data["poor_quality"],
            clinic_keys=[str(c.pk) for c in data["clinic"]],
            ruleset=ruleset,
        )


class HourRestForm(PartyForm):
    rolls = True
    gm_override = forms.BooleanField(
        label=_("Allow it beyond the half-day limit (GM)"), required=False
    )

    def operation(self):
        override = self.cleaned_data["gm_override"]
        return lambda state, ruleset, rng: engine.hour_rest(
            state, rng=rng, gm_override=override, ruleset=ruleset
        )


class ShareHourRestForm(PartyForm):
    """R18 step 2: one PV field and one Flux field per character sharing the group's roll."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sharing = list(self.campaign.characters.order_by("kind", "name"))
        points = self.campaign.pending_hour_rest or 0
        for character in self.sharing:
            self.fields[f"pv_{character.pk}"] = forms.IntegerField(
                label=_("%(name)s: PV") % {"name": character.name},
                min_value=0,
                max_value=4,
                required=False,
                initial=points,
            )
            self.fields[f"flux_{character.pk}"] = forms.IntegerField(
                label=_("%(name)s: Flux") % {"name": character.name},
                min_value=0,
                max_value=4,
                required=False,
                initial=0,
            )

    def rows(self):
        return [(c, self[f"pv_{c.pk}"], self[f"flux_{c.pk}"]) for c in self.sharing]

    def splits(self):
        data = self.cleaned_data
        splits = {}
        for character in self.sharing:
            pv, flux = data.get(f"pv_{character.pk}"), data.get(f"flux_{character.pk}")
            if pv is None and flux is None:
                continue  # not resting with the group
            splits[str(character.pk)] = (pv or 0, flux or 0)
        return splits

    def operation(self):
        splits = self.splits()
        return lambda state, ruleset, rng: engine.share_hour_rest(
            state, splits=splits, ruleset=ruleset
        )


PARTY_ACTIONS = {
    a.name: a
    for a in [
        Action("clock", _("Advance the clock"), ClockForm),
        Action("end_scene", _("End the scene"), EndSceneForm),
        Action("night", _("Night's rest"), NightForm),
        Action("hour_rest", _("Hour's rest: roll"), HourRestForm),
        Action("share_hour_rest", _("Hour's rest: share"), ShareHourRestForm),
    ]
}
