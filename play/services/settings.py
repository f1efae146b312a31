"""The campaign's settings and its members: what they change of the game is logged too."""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from campaign.models import Campaign, Membership, Role
from campaign.services import CampaignError
from characters.models import Character
from journal import audit
from journal.events import publish
from journal.models import EntryKind
from play.services.runner import Result
from play.services.sheet import character_update
from rules import engine

# ---------------------------------------------------------------------------------------------
# The campaign's settings and its members: what they change of the game is logged too

SETTING_PREFIX = "setting."  # the `field` of a setting's entry: "setting.round_seconds"
_RULE_ID = re.compile(r"\bR\d+\b")


def campaign_settings_update(*, campaign_id: int, actor, **values: Any) -> Result:
    """The GM changes the campaign's settings: one entry per setting that changed.

    The settings are the rules' Choices (RULES.md), so each entry names the rule its field's
    help text names (R2 for the statistics). Values are those `CampaignSettingsForm` cleaned;
    `Campaign.full_clean` runs before anything is written (`ValidationError`). A setting's
    entry is not undone by the history's undo: the GM sets it again, which is logged.
    """
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        moved = {
            name: (getattr(campaign, name), value)
            for name, value in values.items()
            if getattr(campaign, name) != value
        }
        for name, (_before, after) in moved.items():
            setattr(campaign, name, after)
        campaign.full_clean()
        campaign.save(update_fields=list(moved) or None)
        drafts = [_setting_draft(campaign, name, *pair) for name, pair in moved.items()]
        entries = audit.append(campaign=campaign, actor=actor, drafts=drafts, visibility="gm")
        if entries:
            publish(campaign.pk, [], entries[-1].pk)
    return Result(engine.Outcome(state=None, changes=(), events=()), entries, [])


def _setting_draft(campaign: Campaign, name: str, before: Any, after: Any) -> audit.Draft:
    field = Campaign._meta.get_field(name)
    rule = "R2" if name == "stats" else next(iter(_RULE_ID.findall(str(field.help_text))), "")
    texts = []
    for language, said in (("fr", "Réglage « %s » : %s → %s"), ("en", "Setting “%s”: %s → %s")):
        with translation.override(language):
            shown = [_setting_value(field, value, language) for value in (before, after)]
            said = said % (field.verbose_name, *shown)
        texts.append(f"{rule} · {said}" if rule else said)
    return audit.Draft(
        kind=EntryKind.CHANGE,
        action="campaign_settings_update",
        rule_id=rule,
        game_time=campaign.clock,
        field=SETTING_PREFIX + name,
        before=before,
        after=after,
        text_fr=texts[0],
        text_en=texts[1],
    )


def _setting_value(field, value: Any, language: str) -> str:
    if isinstance(value, bool):
        return {"fr": ("non", "oui"), "en": ("no", "yes")}[language][value]
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    return str(value)


def membership_end(*, membership_id: int, actor) -> None:
    """A member leaves or is removed; a campaign always keeps at least one GM.

    Their characters stay in the campaign without a player: each loses its owner through
    `character_update`, so the log says so.
    """
    with transaction.atomic():
        membership = Membership.objects.select_for_update().get(pk=membership_id)
        if membership.is_gm:
            gms = Membership.objects.select_for_update().filter(
                campaign_id=membership.campaign_id, role=Role.GM
            )
            if gms.count() <= 1:
                raise CampaignError(
                    _("A campaign needs at least one game master: name another GM first.")
                )
        owned = Character.objects.filter(
            campaign_id=membership.campaign_id, owner_id=membership.user_id
        ).values_list("pk", flat=True)
        for character_id in owned:
            character_update(character_id=character_id, actor=actor, owner=None)
        membership.delete()


MEMBER_ROLE_FIELD = SETTING_PREFIX + "member_role"  # a role is the campaign's set-up, not play


def membership_role_set(*, membership_id: int, actor, role: str) -> list:
    """The GM makes a member GM or player; a campaign always keeps at least one GM.

    Logged for everyone (the members page shows each role): `before` and `after` are the
    roles, and the entry names the member. Setting the role a member already has writes
    nothing. Raises `CampaignError` when it would leave the campaign without a GM.
    """
    if role not in Role.values:
        raise CampaignError(_("Choose a role: game master or player."))
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(memberships__pk=membership_id)
        membership = Membership.objects.select_related("user").get(pk=membership_id)
        if membership.role == role:
            return []
        if membership.is_gm:
            gms = Membership.objects.filter(campaign=campaign, role=Role.GM)
            if gms.count() <= 1:
                raise CampaignError(
                    _("A campaign needs at least one game master: name another GM first.")
                )
        before, membership.role = membership.role, role
        membership.save(update_fields=["role"])
        texts = []
        for language, said in (
            ("fr", "%s est maintenant %s (avant : %s)"),
            ("en", "%s is now %s (was: %s)"),
        ):
            with translation.override(language):
                labels = [str(Role(value).label).lower() for value in (role, before)]
                texts.append(said % (membership.user.username, *labels))
        draft = audit.Draft(
            kind=EntryKind.CHANGE,
            action="membership_role_set",
            game_time=campaign.clock,
            field=MEMBER_ROLE_FIELD,
            before=before,
            after=role,
            text_fr=texts[0],
            text_en=texts[1],
            visibility="everyone",
        )
        entries = audit.append(campaign=campaign, actor=actor, drafts=[draft])
        publish(campaign.pk, [], entries[-1].pk)
    return entries
