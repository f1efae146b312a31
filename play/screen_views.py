"""The table screen (play/screen.py) and the GM's pages for NPCs in numbers and out of play.

The screen is read only. The GM opens it with their session; a device without an account (a
TV) opens it with the campaign's screen link, which the GM creates, replaces and revokes on
the settings page. Either way the page and its part are rendered for a viewer without any
right, and the page refetches its part every few seconds (static/screen.js): a screen needs
no live stream of its own, and a link without a session gets no stream at all.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from campaign.permissions import get_gm_membership
from characters.models import Character, Kind, NpcTemplate
from journal.texts import rule_message
from play.campaign_views import settings_page
from play.forms import NpcTemplateForm
from play.screen import campaign_for_token, screen_for
from play.services.table import (
    MAX_COPIES,
    TableError,
    character_duplicate,
    character_in_play_set,
    npc_template_create,
    npc_template_delete,
    npc_template_save,
    npc_template_spawn,
    screen_link_create,
    screen_link_revoke,
)

REFRESH_SECONDS = 2


def _screen(request, campaign, part_url, *, part_only):
    template = "play/screen.html#screen-part" if part_only else "play/screen.html"
    response = render(
        request,
        template,
        {
            "screen": screen_for(campaign),
            "campaign_name": campaign.name,
            "part_url": part_url,
            "refresh_ms": REFRESH_SECONDS * 1000,
        },
    )
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"  # the link's token never leaves in a Referer
    return response


def _refused_link(request):
    return render(request, "play/screen_gone.html", status=404)


def _copies_added(request, name: str, result) -> None:
    """« Garde : 3 copies ajoutées à la table. », counted from the creations logged."""
    created = len([e for e in result.entries if e.field == "character"])
    messages.success(
        request,
        ngettext(
            "%(name)s: %(n)s copy added to the table.",
            "%(name)s: %(n)s copies added to the table.",
            created,
        )
        % {"name": name, "n": created},
    )


@never_cache
@login_required
@require_GET
def screen_gm(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    url = reverse("screen_part", args=[campaign_id])
    return _screen(request, membership.campaign, url, part_only=False)


@never_cache
@login_required
@require_GET
def screen_gm_part(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    return _screen(request, membership.campaign, "", part_only=True)


@never_cache
@require_GET
def screen_link(request, campaign_id, token):
    campaign = campaign_for_token(campaign_id, token)
    if campaign is None:
        return _refused_link(request)
    url = reverse("screen_link_part", args=[campaign_id, token])
    return _screen(request, campaign, url, part_only=False)


@never_cache
@require_GET
def screen_link_part(request, campaign_id, token):
    campaign = campaign_for_token(campaign_id, token)
    if campaign is None:
        return _refused_link(request)
    return _screen(request, campaign, "", part_only=True)


@login_required
@require_POST
def screen_link_manage(request, campaign_id):
    """The GM creates (or replaces) the screen link, shown once on the settings page, or
    revokes it."""
    membership = get_gm_membership(request, campaign_id)
    what = request.POST.get("do")
    if what == "create":
        token = screen_link_create(campaign_id=campaign_id, actor=request.user)
        url = request.build_absolute_uri(reverse("screen_link", args=[campaign_id, token]))
        return settings_page(request, membership, new_screen_url=url)
    if what == "revoke":
        if screen_link_revoke(campaign_id=campaign_id, actor=request.user):
            messages.success(request, _("The table screen link is revoked: it no longer works."))
        return redirect(reverse("campaign_settings", args=[campaign_id]) + "#screen")
    return HttpResponseBadRequest(_("Unknown request."))


# ---------------------------------------------------------------------------------------------
# NPCs in numbers, out of play and back


def _character(membership, character_id):
    return get_object_or_404(Character, pk=character_id, campaign_id=membership.campaign_id)


@login_required
@require_http_methods(["GET", "POST"])
def character_duplicate_view(request, campaign_id, character_id):
    membership = get_gm_membership(request, campaign_id)
    character = _character(membership, character_id)
    error, count = "", request.POST.get("count", "")
    if request.method == "POST":
        try:
            number = int(count)
        except ValueError:
            error = _("Type a number of copies, from 1 to %(n)s.") % {"n": MAX_COPIES}
        else:
            try:
                result = character_duplicate(
                    character_id=character.pk, actor=request.user, count=number
                )
            except (TableError, ValidationError) as failure:
                error = (
                    rule_message(failure)
                    if isinstance(failure, TableError)
                    else " ".join(failure.messages)
                )
            else:
                _copies_added(request, character.name, result)
                if request.htmx:
                    return HttpResponseClientRedirect(reverse("campaign", args=[campaign_id]))
                return redirect("campaign", campaign_id)
    template = "play/duplicate.html"
    if request.htmx:  # the card's panel, refused input included (a 400 the panel shows)
        template += "#duplicate-form"
    return render(
        request,
        template,
        {
            "campaign": membership.campaign,
            "membership": membership,
            "character": character,
            "count": count or "1",
            "max_copies": MAX_COPIES,
            "error": error,
        },
        status=400 if error else 200,
    )


@login_required
@require_POST
def character_in_play_view(request, campaign_id, character_id):
    """Off the table (`in_play=0`) or back in play (`in_play=1`): back to where it was asked."""
    membership = get_gm_membership(request, campaign_id)
    character = _character(membership, character_id)
    wanted = request.POST.get("in_play")
    if wanted not in ("0", "1"):
        return HttpResponseBadRequest(_("Unknown request."))
    in_play = wanted == "1"
    try:
        character_in_play_set(character_id=character.pk, actor=request.user, in_play=in_play)
    except TableError as error:
        messages.error(request, rule_message(error))
    else:
        messages.success(
            request,
            (
                _("%(name)s is back in play.")
                if in_play
                else _("%(name)s is off the table: find them under « Off the table ».")
            )
            % {"name": character.name},
        )
    if in_play:
        return redirect("off_table", campaign_id)
    return redirect("campaign", campaign_id)


@login_required
@require_GET
def off_table(request, campaign_id):
    """The NPCs out of play, each with « Back in play »."""
    membership = get_gm_membership(request, campaign_id)
    rows = Character.objects.filter(campaign_id=campaign_id, kind=Kind.NPC, in_play=False).order_by(
        "name", "pk"
    )
    return render(
        request,
        "play/off_table.html",
        {"campaign": membership.campaign, "membership": membership, "characters": rows},
    )


# ---------------------------------------------------------------------------------------------
# NPC templates: « Enregistrer comme modèle », the list, spawned in numbers


@login_required
@require_POST
def npc_template_save_view(request, campaign_id, character_id):
    """« Enregistrer comme modèle » from an NPC's menu: to the list of templates."""
    membership = get_gm_membership(request, campaign_id)
    character = _character(membership, character_id)
    if character.kind != Kind.NPC:
        return HttpResponseBadRequest(_("Only an NPC's stat block is saved as a template."))
    template = npc_template_save(character_id=character.pk, actor=request.user)
    messages.success(
        request, _("Template « %(name)s » saved: spawn it in numbers below.") % {"name": template}
    )
    return redirect("npc_templates", campaign_id)


def _templates_page(
    request, membership, *, error_for=None, error="", count="", status=200, form=None
):
    templates = NpcTemplate.objects.filter(campaign_id=membership.campaign_id)
    if form is None:
        form = NpcTemplateForm(campaign=membership.campaign)
    return render(
        request,
        "play/npc_templates.html",
        {
            "campaign": membership.campaign,
            "membership": membership,
            "templates": templates,
            "max_copies": MAX_COPIES,
            "error_for": error_for,
            "error": error,
            "count": count,
            "form": form,
        },
        status=status,
    )


@login_required
@require_GET
def npc_templates(request, campaign_id):
    """The campaign's NPC templates, each with how many to spawn."""
    membership = get_gm_membership(request, campaign_id)
    return _templates_page(request, membership)


@login_required
@require_POST
def npc_template_create_view(request, campaign_id):
    """A template typed from scratch (« Nouveau modèle »): back to the list, or the form again
    with what is wrong, in a 400."""
    membership = get_gm_membership(request, campaign_id)
    form = NpcTemplateForm(request.POST, campaign=membership.campaign)
    if form.is_valid():
        try:
            template = npc_template_create(
                campaign_id=membership.campaign_id,
                actor=request.user,
                name=form.cleaned_data["name"],
                block=form.block(),
            )
        except TableError as failure:
            form.add_error("name", rule_message(failure))
        else:
            messages.success(
                request,
                _("Template « %(name)s » saved: spawn it in numbers below.") % {"name": template},
            )
            return redirect("npc_templates", campaign_id)
    return _templates_page(request, membership, form=form, status=400)


@login_required
@require_POST
def npc_template_spawn_view(request, campaign_id, template_id):
    """N new NPCs from a template (« Garde 1 » … « Garde N »), then the dashboard."""
    membership = get_gm_membership(request, campaign_id)
    template = get_object_or_404(NpcTemplate, pk=template_id, campaign_id=campaign_id)
    count = request.POST.get("count", "")
    try:
        number = int(count)
        result = npc_template_spawn(template_id=template.pk, actor=request.user, count=number)
    except ValueError:
        error = _("Type a number of copies, from 1 to %(n)s.") % {"n": MAX_COPIES}
    except TableError as failure:
        error = rule_message(failure)
    except ValidationError as failure:
        error = " ".join(failure.messages)
    else:
        _copies_added(request, template.name, result)
        return redirect("campaign", campaign_id)
    return _templates_page(
        request, membership, error_for=template.pk, error=error, count=count, status=400
    )


@login_required
@require_POST
def npc_template_delete_view(request, campaign_id, template_id):
    """The template forgotten; the NPCs spawned from it stay on the table."""
    membership = get_gm_membership(request, campaign_id)
    template = get_object_or_404(NpcTemplate, pk=template_id, campaign_id=membership.campaign_id)
    npc_template_delete(template_id=template.pk, actor=request.user)
    messages.success(request, _("Template « %(name)s » deleted.") % {"name": template.name})
    return redirect("npc_templates", campaign_id)
