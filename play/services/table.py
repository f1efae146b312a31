"""The table itself: NPCs in numbers (a character copied N times, numbered), an NPC taken out
of play and put back, and the table screen's link for a device without an account."""

from __future__ import annotations

import hashlib
import re
import secrets

from django.db import transaction
from django.utils import timezone

from campaign.models import Campaign
from characters.models import Character, Kind, NpcTemplate
from journal import audit
from journal.events import publish
from journal.models import EntryKind
from journal.texts import CREATED, IN_PLAY
from play.services.runner import Result, Table, run
from play.services.settings import SETTING_PREFIX
from rules import engine

MAX_COPIES = 20  # copies one click makes: a table's worth of guards, not a typo's thousand
NUMBERED = re.compile(r"^(?P<base>.*?)\s+(?P<n>\d+)$")
NAME_MAX = Character._meta.get_field("name").max_length


class TableError(engine.RuleError):
    code = "table_error"


# ---------------------------------------------------------------------------------------------
# NPCs in numbers


def numbered_names(name: str, taken: list[str], count: int) -> tuple[str, list[str]]:
    """The original's name and the copies' names: « Garde » ×3 among « Garde », « Archer »
    gives « Garde 1 » (the original, numbered so that the table can tell them apart) and
    « Garde 2 » … « Garde 4 »; « Garde 2 » ×2 among « Garde 1 », « Garde 2 » gives « Garde 3 »,
    « Garde 4 ». Numbers go on after the highest one the campaign has for that name; a
    character bearing the name alone (« Garde ») counts as its number 1, as an original
    does, and case does not tell names apart (« garde 4 » takes the 4)."""
    match = NUMBERED.match(name)
    base = (match["base"] if match else name).strip()
    key = base.casefold()
    numbers = [1] if match is None else []
    for other in taken:
        found = NUMBERED.match(other)
        if found and found["base"].strip().casefold() == key:
            numbers.append(int(found["n"]))
        elif other.strip().casefold() == key:
            numbers.append(1)
    first = max(numbers, default=0) + 1
    last = first + count - 1
    base = base[: NAME_MAX - len(f" {last}")].rstrip()
    original = name if match else f"{base} 1"
    return original, [f"{base} {n}" for n in range(first, last + 1)]


def character_duplicate(*, character_id: int, actor, count: int) -> Result:
    """`count` copies of a character, numbered, in one batch: the same kind, statistics,
    maxima, PA, actions, reflexes and notes, at full PV and Flux, without conditions,
    sequels, illness or player. An unnumbered NPC takes the number 1 (its name's change is
    logged in the same batch); a player character keeps its name. Each copy is logged as a
    creation; a creation is not undone (play/services/undo.py): the GM takes a copy out of
    play instead."""
    _require_count(count)
    with transaction.atomic():
        campaign_id = Character.objects.values_list("campaign_id", flat=True).get(pk=character_id)
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        source = Character.objects.get(pk=character_id)
        taken = list(Character.objects.filter(campaign=campaign).values_list("name", flat=True))
        original, names = numbered_names(source.name, taken, count)
        if source.kind != Kind.NPC:
            original = source.name  # a player's character keeps the name its player knows
        rename = (source, original) if original != source.name else None
        return _spawn(campaign, source, names, actor, "character_duplicate", rename=rename)


def _require_count(count: int) -> None:
    if not 1 <= count <= MAX_COPIES:
        raise TableError(
            f"Choisissez entre 1 et {MAX_COPIES} copies.",
            f"Choose between 1 and {MAX_COPIES} copies.",
        )


BLOCK = ("stats", "pv_max", "flux_max", "pa", "actions", "reflexes", "public_notes", "gm_notes")


def _spawn(campaign, source, names, actor, action: str, *, rename=None) -> Result:
    """New characters named `names` with `source`'s stat block (a character or an
    NpcTemplate, `BLOCK`) at full PV and Flux, each logged as a creation, in one batch;
    `rename`: (character, new name), logged in the same batch. Inside the campaign's lock."""
    kind = getattr(source, "kind", Kind.NPC)
    copies = []
    for name in names:
        row = Character(
            campaign=campaign,
            name=name,
            kind=kind,
            stats=dict(source.stats),
            pv=source.pv_max,
            pv_max=source.pv_max,
            flux=source.flux_max,
            flux_max=source.flux_max,
            pa=source.pa,
            actions=source.actions,
            reflexes=source.reflexes,
            public_notes=source.public_notes,
            gm_notes=source.gm_notes,
        )
        # The model's rules for a sheet, as character_create checks them.
        row.full_clean(exclude=["campaign", "id"])
        copies.append(row)
    for row in copies:
        row.save()

    def operation(t: Table) -> engine.Outcome:
        at = t.state.clock
        steps = engine.Steps(t.state)
        if rename is not None:
            renamed, new_name = rename
            steps.by_hand(
                [engine.Change(str(renamed.pk), "name", renamed.name, new_name, "", at, True)]
            )
        for row in copies:
            sheet = {
                "name": row.name,
                "kind": row.kind,
                "owner": None,
                "stats": row.stats,
                "pv_max": row.pv_max,
                "flux_max": row.flux_max,
                "pa": row.pa,
                "actions": row.actions,
                "reflexes": row.reflexes,
            }
            key = str(row.pk)
            steps.keep([engine.Change(key, CREATED, None, sheet, "", at, True)])
            steps.keep(
                engine.Change(key, field, "", getattr(row, field), "", at, True)
                for field in ("public_notes", "gm_notes")
                if getattr(row, field)
            )
        return steps.outcome()

    named = [rename[0].pk] if rename is not None else []
    return run(
        campaign_id=campaign.pk,
        character_ids=[*named, *(row.pk for row in copies)],
        actor=actor,
        action=action,
        operation=operation,
    )


# ---------------------------------------------------------------------------------------------
# NPC templates: a stat block saved once, spawned in numbers

NPC_TEMPLATE_FIELD = SETTING_PREFIX + "npc_template"


def template_name(name: str) -> str:
    """A template's name from a character's: « Garde 3 » gives « Garde »."""
    match = NUMBERED.match(name)
    return (match["base"] if match else name).strip() or name


def _block_fr(block) -> str:
    """A stat block's maxima as the log says them: « PV max 12, Flux max 4, PA 0 »."""
    return f"PV max {block.pv_max}, Flux max {block.flux_max}, PA {block.pa}"


def _block_en(block) -> str:
    return f"max PV {block.pv_max}, max Flux {block.flux_max}, PA {block.pa}"


def npc_template_save(*, character_id: int, actor) -> NpcTemplate:
    """« Enregistrer comme modèle »: the character's stat block (`BLOCK`) saved for its
    campaign under its name without a number; saved again, the block is replaced. Logged
    for the GM (not undone: the GM saves again or deletes it)."""
    with transaction.atomic():
        campaign_id = Character.objects.values_list("campaign_id", flat=True).get(pk=character_id)
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        source = Character.objects.get(pk=character_id)
        name = template_name(source.name)
        block = {field: getattr(source, field) for field in BLOCK}
        template, created = NpcTemplate.objects.update_or_create(
            campaign=campaign, name=name, defaults=block
        )
        verb_fr, verb_en = ("enregistré", "saved") if created else ("mis à jour", "updated")
        _log_campaign(
            campaign,
            actor,
            "npc_template",
            NPC_TEMPLATE_FIELD,
            name,
            f"Modèle de PNJ {verb_fr} : {name} (d’après {source.name} ; {_block_fr(source)})",
            f"NPC template {verb_en}: {name} (from {source.name}; {_block_en(source)})",
        )
        return template


def npc_template_create(*, campaign_id: int, actor, name: str, block: dict) -> NpcTemplate:
    """A template typed from scratch (the list's blank form): `name` and its stat block
    (`BLOCK`). Refused if the campaign has a template of that name (saving an NPC's block
    replaces one; a typed one must not replace one by accident). Logged for the GM."""
    name = template_name(name.strip())
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        taken = NpcTemplate.objects.filter(campaign=campaign, name__iexact=name).first()
        if taken is not None:
            raise TableError(
                f"Un modèle « {taken.name} » existe déjà : supprimez-le d’abord, ou choisissez "
                "un autre nom.",
                f"There is already a template « {taken.name} »: delete it first, or choose "
                "another name.",
            )
        template = NpcTemplate.objects.create(
            campaign=campaign, name=name, **{field: block[field] for field in BLOCK}
        )
        _log_campaign(
            campaign,
            actor,
            "npc_template",
            NPC_TEMPLATE_FIELD,
            name,
            f"Modèle de PNJ créé : {name} ({_block_fr(template)})",
            f"NPC template created: {name} ({_block_en(template)})",
        )
        return template


def npc_template_delete(*, template_id: int, actor) -> None:
    """The template forgotten (the NPCs spawned from it stay), logged for the GM."""
    with transaction.atomic():
        campaign_id = NpcTemplate.objects.values_list("campaign_id", flat=True).get(pk=template_id)
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        template = NpcTemplate.objects.get(pk=template_id)
        name = template.name
        template.delete()
        _log_campaign(
            campaign,
            actor,
            "npc_template",
            NPC_TEMPLATE_FIELD,
            "",
            f"Modèle de PNJ supprimé : {name}",
            f"NPC template deleted: {name}",
        )


def npc_template_spawn(*, template_id: int, actor, count: int) -> Result:
    """`count` new NPCs from a template, numbered after the highest number the campaign has
    for its name (« Garde 1 » … « Garde N »), through the same creation as duplication:
    full PV and Flux, each logged as a creation."""
    _require_count(count)
    with transaction.atomic():
        campaign_id = NpcTemplate.objects.values_list("campaign_id", flat=True).get(pk=template_id)
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        template = NpcTemplate.objects.get(pk=template_id)
        taken = list(Character.objects.filter(campaign=campaign).values_list("name", flat=True))
        # Numbered from 1, or after the highest « Garde n » there is; a « Garde » alone on
        # the table counts as « Garde 1 » (it is not renamed: it is not the one copied).
        _original, names = numbered_names(f"{template.name} 0", taken, count)
        return _spawn(campaign, template, names, actor, "npc_template_spawn")


# ---------------------------------------------------------------------------------------------
# Out of play and back


def character_in_play_set(
    *, character_id: int, actor, in_play: bool, visibility: str | None = None
) -> Result:
    """An NPC out of the story (dead, fled) leaves the table: the dashboard and the table
    screen no longer show it, its log stays; a combatant leaves the running fight in the same
    action (R33). Back in play, it is shown again (not back in a fight). One change entry each
    way, undone by the history's undo. Refused for a player character (the players' pages
    follow their characters) and for the last combatant of a fight (the fight ends instead)."""
    key = str(character_id)

    def operation(t: Table) -> engine.Outcome:
        row = t.rows[key]
        if row.kind != Kind.NPC:
            raise TableError(
                f"{row.name} est un personnage joueur : seuls les PNJ quittent la table.",
                f"{row.name} is a player character: only NPCs leave the table.",
            )
        if row.in_play == in_play:
            raise TableError(
                *(
                    (f"{row.name} est déjà en jeu.", f"{row.name} is already in play.")
                    if in_play
                    else (
                        f"{row.name} n’est déjà plus à la table.",
                        f"{row.name} is already off the table.",
                    )
                )
            )
        steps = engine.Steps(t.state)
        fight = t.state.fight
        if not in_play and fight is not None and key in fight.order:
            rest = [other for other in fight.order if other != key]
            if not rest:
                raise TableError(
                    f"{row.name} est le dernier du combat : terminez le combat d’abord.",
                    f"{row.name} is the last one in the fight: end the fight first.",
                    rule_id="R33",
                )
            steps.then(engine.set_order(t.state, rest, ruleset=t.ruleset))
        steps.keep([engine.Change(key, IN_PLAY, row.in_play, in_play, "", t.state.clock, True)])
        return steps.outcome()

    return run(
        character_ids=[character_id],
        fighting=True,
        actor=actor,
        action="character_in_play_set",
        operation=operation,
        visibility=visibility,
    )


# ---------------------------------------------------------------------------------------------
# The table screen's link

SCREEN_LINK_FIELD = SETTING_PREFIX + "screen_link"


def screen_token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def screen_link_create(*, campaign_id: int, actor) -> str:
    """A new table screen link (the previous one, if any, stops working): returns its token,
    which is shown once; only its SHA-256 is kept. Logged for the GM, without the token."""
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        replaced = bool(campaign.screen_token_hash)
        campaign.screen_token_hash = screen_token_digest(token)
        campaign.screen_token_created_at = timezone.now()
        campaign.save(update_fields=["screen_token_hash", "screen_token_created_at"])
        _log_screen_link(
            campaign,
            actor,
            "replaced" if replaced else "created",
            (
                "Lien de l’écran de table remplacé (l’ancien ne marche plus)"
                if replaced
                else "Lien de l’écran de table créé"
            ),
            "Table screen link replaced (the old one no longer works)"
            if replaced
            else "Table screen link created",
        )
    return token


def screen_link_revoke(*, campaign_id: int, actor) -> bool:
    """The table screen's link stops working at once; False if there was none."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign_id)
        if not campaign.screen_token_hash:
            return False
        campaign.screen_token_hash = ""
        campaign.screen_token_created_at = None
        campaign.save(update_fields=["screen_token_hash", "screen_token_created_at"])
        _log_screen_link(
            campaign,
            actor,
            "revoked",
            "Lien de l’écran de table révoqué",
            "Table screen link revoked",
        )
    return True


def _log_screen_link(campaign, actor, after: str, text_fr: str, text_en: str) -> None:
    _log_campaign(campaign, actor, "screen_link", SCREEN_LINK_FIELD, after, text_fr, text_en)


def _log_campaign(campaign, actor, action, field, after, text_fr: str, text_en: str) -> None:
    """A GM-only entry for a write outside the engine's state (a link, a template)."""
    draft = audit.Draft(
        kind=EntryKind.CHANGE,
        action=action,
        game_time=campaign.clock,
        field=field,
        before=None,
        after=after,
        text_fr=text_fr,
        text_en=text_en,
    )
    entries = audit.append(campaign=campaign, actor=actor, drafts=[draft], visibility="gm")
    publish(campaign.pk, [], entries[-1].pk)
