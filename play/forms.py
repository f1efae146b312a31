from django import forms
from django.utils.translation import gettext_lazy as _

from campaign.models import Role, Visibility
from characters.models import STAT_MAX, STAT_MIN, Character, Gender, Kind, NpcTemplate
from play.actions import DiceField


class CharacterForm(forms.ModelForm):
    """A character with one number field per stat of the campaign's ruleset (R2).

    It only validates: the view hands `service_arguments()` to `services.character_create`
    or `services.character_update`, which log each change and apply its rules.
    """

    # Setting PV to 0 or less makes a Survie test (R10): its die may be typed in (R9).
    dice = DiceField()
    visibility = forms.ChoiceField(
        label=_("Visible to"), choices=Visibility.choices, required=False
    )

    class Meta:
        model = Character
        fields = [
            "name",
            "kind",
            "gender",
            "owner",
            "pv",
            "pv_max",
            "flux",
            "flux_max",
            "pa",
            "actions",
            "reflexes",
            "public_notes",
            "gm_notes",
        ]
        widgets = {
            "public_notes": forms.Textarea(attrs={"rows": 3}),
            "gm_notes": forms.Textarea(attrs={"rows": 3}),
        }

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.instance.campaign = campaign
        players = campaign.memberships.filter(role=Role.PLAYER).values_list("user_id", flat=True)
        self.fields["owner"].queryset = self.fields["owner"].queryset.filter(pk__in=players)
        self.fields["owner"].required = False
        self.fields["visibility"].initial = campaign.default_roll_visibility
        self.stat_codes = list(campaign.stats)
        for code in self.stat_codes:
            self.fields[f"stat_{code}"] = forms.IntegerField(
                label=code,
                min_value=STAT_MIN,
                max_value=STAT_MAX,
                initial=self.instance.stats.get(code, 0) if self.instance.pk else 0,
            )
        for name in ("pv", "pv_max", "flux", "flux_max"):
            self.fields[name].widget.attrs["inputmode"] = "numeric"
        # Left out (a form posted before the field existed, a script): the character keeps
        # their gender, or is « iel » (the inclusive form) when new.
        self.fields["gender"].required = False
        if self.instance.pk is None:
            # A new character starts at its maxima unless told otherwise, and a server roll
            # makes R10's Survie if it starts at 0 PV or less: no dice to type on creation.
            for name in ("pv", "flux"):
                self.fields[name].required = False
                self.fields[name].help_text = _("Empty: the maximum.")
            del self.fields["dice"]

    def clean_gender(self):
        return self.cleaned_data.get("gender") or self.instance.gender or Gender.IEL

    def stat_fields(self):
        return [self[f"stat_{code}"] for code in self.stat_codes]

    def other_fields(self):
        names = [*self.Meta.fields, "visibility", "dice"]
        return [self[name] for name in names if name in self.fields]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("kind") == Kind.NPC and cleaned.get("owner"):
            self.add_error("owner", _("Only a player character can be given to a player."))
        if self.instance.pk is None:
            for name in ("pv", "flux"):
                if cleaned.get(name) is None and cleaned.get(f"{name}_max") is not None:
                    cleaned[name] = cleaned[f"{name}_max"]
        else:
            # A maximum lowered below an untouched current value brings it down (R1).
            for name in ("pv", "flux"):
                value, maximum = cleaned.get(name), cleaned.get(f"{name}_max")
                if name not in self.changed_data and None not in (value, maximum):
                    cleaned[name] = min(value, maximum)
        return cleaned

    def _post_clean(self):
        self.instance.stats = {
            code: self.cleaned_data[f"stat_{code}"]
            for code in self.stat_codes
            if f"stat_{code}" in self.cleaned_data
        }
        super()._post_clean()

    def service_arguments(self) -> dict:
        """Every field of a new character; only the changed ones of an edit."""
        data = self.cleaned_data
        new = self.instance.pk is None
        arguments = {
            name: data[name] for name in self.Meta.fields if new or name in self.changed_data
        }
        stats = [f"stat_{code}" for code in self.stat_codes]
        if new or any(name in self.changed_data for name in stats):
            arguments["stats"] = {code: data[f"stat_{code}"] for code in self.stat_codes}
        arguments["dice"] = data.get("dice") or None  # absent on creation
        arguments["visibility"] = data.get("visibility") or None
        return arguments


class NpcTemplateForm(forms.ModelForm):
    """An NPC template typed from scratch on the templates' list: its name, maxima, armour,
    actions and one number per statistic of the campaign (R2). It only validates: the view
    hands `block()` to `play.services.table.npc_template_create`, which logs it."""

    class Meta:
        model = NpcTemplate
        fields = ["name", "pv_max", "flux_max", "pa", "actions", "reflexes", "gm_notes"]
        widgets = {"gm_notes": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.campaign = campaign
        self.stat_codes = list(campaign.stats)
        for code in self.stat_codes:
            self.fields[f"stat_{code}"] = forms.IntegerField(
                label=code, min_value=STAT_MIN, max_value=STAT_MAX, initial=0
            )
        for name in ("pv_max", "flux_max", "pa", "actions", "reflexes"):
            self.fields[name].widget.attrs["inputmode"] = "numeric"

    def validate_unique(self):
        pass  # the service refuses a name taken, in French, with the lock held

    def stat_fields(self):
        return [self[f"stat_{code}"] for code in self.stat_codes]

    def other_fields(self):
        return [self[name] for name in self.Meta.fields]

    def block(self) -> dict:
        data = self.cleaned_data
        return {
            "stats": {code: data[f"stat_{code}"] for code in self.stat_codes},
            **{name: data[name] for name in self.Meta.fields if name != "name"},
            "public_notes": "",
        }
