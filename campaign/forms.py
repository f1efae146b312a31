from datetime import timedelta

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from campaign import services
from campaign.models import Campaign, Invitation, validate_stat_list


class SignupForm(UserCreationForm):
    email = forms.EmailField(
        label=_("Email"),
        required=False,
        help_text=_("Optional; needed only to reset a forgotten password."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


class ThrottledPasswordResetForm(PasswordResetForm):
    """Django's form, sending nothing past the hourly limit per address: the answer is the
    same either way, so it tells nobody whether the address has an account."""

    def save(self, *args, **kwargs):
        if services.password_reset_allow(email=self.cleaned_data["email"]):
            super().save(*args, **kwargs)


class CampaignCreateForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ["name"]


class StatListField(forms.CharField):
    """The stat list typed as codes separated by commas or spaces: "ADR, PUI, …"."""

    def to_python(self, value):
        text = super().to_python(value)
        return [code.strip().upper() for code in text.replace(",", " ").split() if code.strip()]

    def prepare_value(self, value):
        if isinstance(value, list):
            return ", ".join(value)
        return value


class CampaignSettingsForm(forms.ModelForm):
    stats = StatListField(
        label=_("Statistics"),
        max_length=200,
        help_text=_(
            "Codes separated by commas. The rules need ADR, PUI, INS, PRE, VAI, SAV and ESP (R2)."
        ),
    )

    class Meta:
        model = Campaign
        fields = [
            "name",
            "stats",
            "default_difficulty",
            "natural_extremes",
            "hour_rests_per_half_day",
            "players_roll",
            "players_roll_rules",
            "default_roll_visibility",
            "party_visibility",
            "coma_delay_minutes",
            "automatic_wake_tries",
            "poor_night_is_proper",
            "damage_ends_stabilisation",
            "surprise_ends_after_first_round",
            "round_seconds",
            "morning_hour",
        ]

    def clean_stats(self):
        stats = self.cleaned_data["stats"]
        try:
            validate_stat_list(stats)
        except ValidationError as error:
            # The validator names the model field; a clean_<field> method must not.
            raise ValidationError(error.message_dict["stats"]) from None
        return stats


class InvitationForm(forms.ModelForm):
    valid_days = forms.IntegerField(
        label=_("Valid for (days)"), min_value=1, max_value=90, initial=7
    )

    class Meta:
        model = Invitation
        fields = ["role", "max_uses"]

    def save(self, commit=True):
        self.instance.expires_at = timezone.now() + timedelta(days=self.cleaned_data["valid_days"])
        return super().save(commit=commit)
