"""The GM's actions: a form each, and the service it calls.

A view looks an action up by name, validates its form, and calls the action's service with
`form.service_arguments()`. Forms only validate. Adding an action is adding an entry here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from django import forms
from django.core.validators import MaxValueValidator
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from campaign.models import Visibility
from characters.models import ConditionKind, Severity
from journal.texts import rule_message
from play import services
from rules.engine import RuleError, parse_free_roll
from rules.engine.text import cause_text

MAX_AMOUNT = 999


# ASCII digits only: str.isdigit() also accepts « ² » or « ٣ », which int() then refuses.
_WHOLE = re.compile(r"[0-9]{1,6}")


def typed_value(text: str, highest: int, lowest: int = 1) -> int | None:
    """A die value typed in, `lowest` to `highest`, or None when it is not one."""
    if not _WHOLE.fullmatch(text):
        return None
    value = int(text)
    return value if lowest <= value <= highest else None


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
            value = typed_value(part, 1000)
            if value is None and typed_value(part, 1000, lowest=0) == 0:
                # 0 is a whole number: say what a die shows instead. The die a value is read
                # for refuses one above its faces itself ("Un D20 ne peut pas donner 25").
                raise forms.ValidationError(
                    _(
                        "“%(part)s” is not a die value: a die shows 1 to its number of faces "
                        "(1 to 20 for a D20)."
                    )
                    % {"part": part[:10]}
                )
            if value is None:
                raise forms.ValidationError(
                    _(
                        "“%(part)s” is not a die value: type the numbers the dice show, "
                        "such as 14 or 3, 5."
                    )
                    % {"part": part[:10]}
                )
            values.append(value)
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

    def common_fields(self):
        return [self[name] for name in ("visibility", "dice") if name in self.fields]

    def service_arguments(self) -> dict:
        """The service's keyword arguments, besides who acts and on what."""
        data = self.cleaned_data
        common = {"visibility": data.get("visibility") or None}
        if self.rolls:
            common["dice"] = data.get("dice") or None
        return common | self.arguments()

    def arguments(self) -> dict:
        """This action's own arguments."""
        return {}


class WhoRollsField(forms.TypedChoiceField):
    """R34: who rolls the rules rolls this action may bring: the server, or the players
    (each their own character's). Absent from a form (the quick buttons): the campaign's
    setting decides (`None`)."""

    def __init__(self, label, **kwargs):
        super().__init__(
            label=label,
            choices=[("server", _("The server")), ("players", _("The player (R34)"))],
            coerce=lambda value: value == "players",
            empty_value=None,
            required=False,
            **kwargs,
        )


def who_rolls(form, name="ask_players"):
    """The form's choice (True: the players roll), or None to follow the campaign."""
    if name not in form.fields or name not in form.data:
        return None
    return form.cleaned_data.get(name)


def amount_field(label):
    return forms.IntegerField(label=label, min_value=0, max_value=MAX_AMOUNT)


class DamageForm(ActionForm):
    rolls = True  # reaching 0 PV makes a Survie test (R10)
    amount = amount_field(_("Damage"))
    ignores_pa = forms.BooleanField(label=_("Ignores PA"), required=False)
    cause = forms.CharField(label=_("Cause (for a later sequel)"), max_length=200, required=False)
    ask_players = WhoRollsField(_("Survie at 0 PV (R10) rolled by"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        character = self.character
        if character is None or character.kind != "pc" or character.owner_id is None:
            del self.fields["ask_players"]  # no player to ask (R34)
        else:
            self.fields["ask_players"].initial = (
                "players" if self.campaign.players_roll_rules else "server"
            )

    def service_arguments(self):
        return super().service_arguments() | {"ask_players": who_rolls(self)}

    def arguments(self):
        data = self.cleaned_data
        return {"amount": data["amount"], "ignores_pa": data["ignores_pa"], "cause": data["cause"]}


class AmountForm(ActionForm):
    """Healing, Flux spent or restored: an amount and nothing else."""

    amount = amount_field(_("Amount"))

    def arguments(self):
        return {"amount": self.cleaned_data["amount"]}


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

    def arguments(self):
        data = self.cleaned_data
        return {
            "stat": data["stat"],
            "skill": data["skill"] or None,
            "difficulty": data["difficulty"],
            # A form without the field (the player's) has no GM modifier.
            "modifier": data.get("modifier") or 0,
        }

    def check_arguments(self):
        """What the engine's odds need besides the stat (R5–R8), as the service passes it."""
        arguments = self.arguments()
        return {
            "skill": arguments["skill"],
            "difficulty": arguments["difficulty"],
            "modifiers": services.gm_modifiers(arguments["modifier"]),
        }


class ConditionForm(ActionForm):
    kind = forms.ChoiceField(label=_("Condition"), choices=ConditionKind.choices)

    def arguments(self):
        return {"kind": self.cleaned_data["kind"]}


class RemoveConditionForm(ConditionForm):
    """R26: the GM removes a condition the character has (every cause of it), each offered
    with its causes; one it does not have is not offered."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        lang = 1 if translation.get_language() == "en" else 0
        causes: dict[str, list[str]] = {}
        for condition in self.character.conditions.all() if self.character else ():
            causes.setdefault(condition.kind, []).append(cause_text(condition.cause)[lang])
        if causes:  # with none, the rules refuse with their own reason (R26)
            self.fields["kind"].choices = [
                (kind, f"{label} ({', '.join(causes[kind])})")
                for kind, label in ConditionKind.choices
                if kind in causes
            ]


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

    def arguments(self):
        data = self.cleaned_data
        healer = data.get("healer")
        return {
            "healer_id": healer.pk if healer else None,
            "healer_esp": None if healer else data["healer_esp"],
            "difficulty": data["difficulty"],
        }


class WakeForm(ActionForm):
    rolls = True
    sequel_cause = forms.CharField(
        label=_("The sequel's trauma (R14)"),
        max_length=200,
        required=False,
        help_text=_("A burn's pain, a bloody cough… Empty: what knocked the character out."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        character = self.character
        if character is not None and character.vital == "stabilised" and not character.down_cause:
            # Nothing says what knocked them out: a sequel (R14) must not be left without one.
            # (Only when they may try: otherwise the refusal says why they may not, R13.)
            field = self.fields["sequel_cause"]
            field.required = True
            field.help_text = _(
                "A burn's pain, a bloody cough… Nothing says what knocked the character out: "
                "write it."
            )
            field.error_messages["required"] = _(
                "Nothing says what knocked this character out: write the sequel's trauma (R14)."
            )

    def arguments(self):
        return {"sequel_cause": self.cleaned_data["sequel_cause"]}


class EndComaForm(ActionForm):
    pass


class ReviveForm(ActionForm):
    pv = forms.IntegerField(label=_("PV on coming back"), min_value=1, max_value=MAX_AMOUNT)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # R1: never above the maximum; gm_revive does not cap and the database would refuse.
        field = self.fields["pv"]
        field.max_value = self.character.pv_max
        field.validators.append(MaxValueValidator(self.character.pv_max))
        field.widget.attrs["max"] = self.character.pv_max

    def arguments(self):
        return {"pv": self.cleaned_data["pv"]}


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

    def arguments(self):
        data = self.cleaned_data
        return {
            "storeys": data["storeys"] or 0,
            "in_motion": data["in_motion"],
            "surface": data["surface"],
            "soften": data["soften"],
            "cause": data["cause"],
        }


class FallIllForm(ActionForm):
    rolls = True
    severity = forms.TypedChoiceField(
        label=_("Severity"), choices=Severity.choices, coerce=int, initial=Severity.MILD
    )
    name = forms.CharField(label=_("Illness"), max_length=120, required=False)

    def arguments(self):
        return {"severity": self.cleaned_data["severity"], "name": self.cleaned_data["name"]}


class RemedyForm(ActionForm):
    rolls = True


@dataclass(frozen=True)
class Action:
    name: str
    label: str
    form: type[ActionForm]
    service: Callable[..., services.Result]  # called with the form's service_arguments()


QUICK_ACTIONS = {"damage", "heal", "spend_flux", "restore_flux"}  # buttons on every card

# Each service takes `character_id` and `actor` besides the form's arguments.
ACTIONS = {
    a.name: a
    for a in [
        Action("damage", _("Damage"), DamageForm, services.character_damage),
        Action("heal", _("Heal"), AmountForm, services.character_heal),
        Action("spend_flux", _("Spend Flux"), AmountForm, services.flux_spend),
        Action("restore_flux", _("Restore Flux"), AmountForm, services.flux_restore),
        Action("check", _("Test"), CheckForm, services.character_check),
        Action("add_condition", _("Add a condition"), ConditionForm, services.condition_add),
        Action(
            "remove_condition",
            _("Remove a condition"),
            RemoveConditionForm,
            services.condition_remove,
        ),
        Action("fall", _("Fall"), FallForm, services.character_fall),
        Action("fall_ill", _("Fall ill"), FallIllForm, services.character_fall_ill),
        Action("remedy", _("Remedy"), RemedyForm, services.remedy_take),
        Action("stabilise", _("Stabilise"), StabiliseForm, services.character_stabilise),
        Action("wake", _("Waking try"), WakeForm, services.character_wake),
        Action("end_coma", _("End the coma (GM)"), EndComaForm, services.coma_end),
        Action("revive", _("Bring back (GM)"), ReviveForm, services.character_revive),
    ]
}


class PartyForm(ActionForm):
    """An action on the whole party."""


class AsksPlayersForm(PartyForm):
    """R34: a party action whose rules rolls may go to the players: its `ask_players` (a
    WhoRollsField of its own label) starts from the campaign's setting."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ask_players"].initial = (
            "players" if self.campaign.players_roll_rules else "server"
        )

    def service_arguments(self):
        return super().service_arguments() | {"ask_players": who_rolls(self)}


class ClockForm(AsksPlayersForm):
    rolls = True  # coma hours and waking tries roll on the way (R11, R13)
    minutes = forms.IntegerField(
        label=_("Advance the clock by (minutes)"),
        min_value=1,
        max_value=60 * 24 * 30,
        required=False,
    )
    to_morning = forms.BooleanField(label=_("To the next morning"), required=False)
    ask_players = WhoRollsField(_("Players' coma and waking rolls (R11, R13) rolled by"))

    def clean(self):
        cleaned = super().clean()
        if not cleaned.get("to_morning") and not cleaned.get("minutes"):
            raise forms.ValidationError(_("Give a number of minutes, or choose the next morning."))
        return cleaned

    def arguments(self):
        data = self.cleaned_data
        if data["to_morning"]:
            return {"to_morning": True}
        return {"minutes": data["minutes"]}


class EndSceneForm(PartyForm):
    pass


class NightForm(AsksPlayersForm):
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
    ask_players = WhoRollsField(
        _("Players' rolls in the night (coma, waking, Volonté: R11, R13, R31) rolled by")
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        characters = self.campaign.characters.order_by("kind", "name")
        self.fields["sleepers"].queryset = characters
        self.fields["clinic"].queryset = characters

    def arguments(self):
        data = self.cleaned_data
        return {
            "hours": float(data["hours"]),
            "poor_quality": data["poor_quality"],
            "sleeper_ids": [c.pk for c in data["sleepers"]],
            "clinic_ids": [c.pk for c in data["clinic"]],
        }


class HourRestForm(AsksPlayersForm):
    rolls = True
    gm_override = forms.BooleanField(
        label=_("Allow it beyond the half-day limit (GM)"), required=False
    )
    ask_players = WhoRollsField(
        _("Players' coma and waking rolls in that hour (R11, R13) rolled by")
    )

    def arguments(self):
        return {"gm_override": self.cleaned_data["gm_override"]}


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
            splits[character.pk] = (pv or 0, flux or 0)
        return splits

    def arguments(self):
        return {"splits": self.splits()}


# Each service takes `campaign_id` and `actor` besides the form's arguments.
class FreeRollForm(PartyForm):
    """R9: a free roll, « 2d6+3 », « 1d20+ADR », for a character (whose statistics it may
    add) or for nobody in particular; the expression is checked by the engine's grammar."""

    rolls = True
    # Who reads its refusals: the GM, with the rules' ids.
    gm_reads = True
    expression = forms.CharField(
        label=_("Dice"),
        max_length=60,
        help_text=_("For example 2d6+3, 1d20+ADR, d6−1."),
    )
    character = forms.ModelChoiceField(
        label=_("For"), queryset=None, required=False, empty_label=_("Nobody in particular")
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].queryset = self.campaign.characters.order_by("kind", "name")
        self.fields["expression"].widget.attrs.update(
            {"autocomplete": "off", "spellcheck": "false", "autocapitalize": "off"}
        )

    def clean_expression(self):
        text = self.cleaned_data["expression"]
        try:
            parse_free_roll(text, self.campaign.stats)
        except RuleError as error:
            raise forms.ValidationError(rule_message(error, gm=self.gm_reads)) from error
        return text

    def arguments(self):
        character = self.cleaned_data.get("character")
        return {
            "expression": self.cleaned_data["expression"],
            "character_id": character.pk if character else None,
        }


PARTY_ACTIONS = {
    a.name: a
    for a in [
        Action("clock", _("Advance the clock"), ClockForm, services.clock_advance),
        Action("end_scene", _("End the scene"), EndSceneForm, services.scene_end),
        Action("night", _("Night's rest"), NightForm, services.party_night_rest),
        Action("hour_rest", _("Hour's rest: roll"), HourRestForm, services.party_hour_rest),
        Action(
            "share_hour_rest",
            _("Hour's rest: share"),
            ShareHourRestForm,
            services.hour_rest_share,
        ),
        Action("free_roll", _("Free roll"), FreeRollForm, services.free_roll),
    ]
}


# ---------------------------------------------------------------------------------------------
# Several targets at once: a character's action on the characters the GM ticked


class GroupDamageForm(DamageForm):
    """Damage on several characters: who rolls the Survie at 0 PV (R10) of those whose player
    rolls their rules rolls (R34) is asked whoever is ticked; a non-player character's is
    the server's all the same."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ask_players"] = WhoRollsField(
            _("Survie at 0 PV (R10) of player characters rolled by")
        )
        self.fields["ask_players"].initial = (
            "players" if self.campaign.players_roll_rules else "server"
        )
        self.order_fields(["amount", "ignores_pa", "cause", "ask_players", "visibility"])


def group_form(form_class):
    """A single target's form for several: the same fields and checks, without typed-in
    dice (the server rolls for a group, R9)."""

    class GroupForm(form_class):
        rolls = False

    GroupForm.__name__ = GroupForm.__qualname__ = f"Group{form_class.__name__}"
    return GroupForm


# Each service is `services.group_action`, with the action's name and the form's arguments.
GROUP = services.group_action
GROUP_ACTIONS = {
    a.name: a
    for a in [
        Action(
            "damage", _("Damage to the selected characters"), group_form(GroupDamageForm), GROUP
        ),
        Action("heal", _("Heal the selected characters"), group_form(AmountForm), GROUP),
        Action(
            "spend_flux", _("Flux lost by the selected characters"), group_form(AmountForm), GROUP
        ),
        Action(
            "restore_flux",
            _("Flux gained by the selected characters"),
            group_form(AmountForm),
            GROUP,
        ),
        Action(
            "add_condition",
            _("A condition for the selected characters"),
            group_form(ConditionForm),
            GROUP,
        ),
        Action("fall", _("The selected characters fall"), group_form(FallForm), GROUP),
        Action("check", _("A test for the selected characters"), group_form(CheckForm), GROUP),
    ]
}
# The group bar's buttons, in this order (templates/play/_group_bar.html).
GROUP_BUTTONS = [
    ("damage", _("Damage")),
    ("heal", _("Heal")),
    ("spend_flux", _("−Flux")),
    ("restore_flux", _("+Flux")),
    ("add_condition", _("Condition")),
    ("fall", _("Fall")),
    ("check", _("Test")),
]
