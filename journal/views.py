"""The campaign history: the timeline, its exports and session recaps.

Views stay thin: permission, form, one selector or service, render. What a viewer may see
comes from `journal.visibility` through `journal.selectors`.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from campaign.permissions import get_gm_membership, get_membership
from journal import exports, services, standing
from journal import recap as recaps
from journal.audit import BadSeal, Seal, check_seal, seal_for
from journal.models import AuditEntry, PlaySession
from journal.seals import bad_seal_message, check_message, sealed_at
from journal.selectors import (
    HistoryFilterForm,
    batch_sizes,
    filtered_entries,
    group_entries,
    keyset_page,
    session_entries,
)
from journal.texts import current_language, field_name, undo_question

FORMATS = {
    "csv": ("text/csv; charset=utf-8", exports.as_csv),
    "json": ("application/json; charset=utf-8", exports.as_json),
    "md": ("text/markdown; charset=utf-8", None),
}


@login_required
@require_GET
def history(request, campaign_id):
    membership = get_membership(request, campaign_id)
    campaign = membership.campaign
    form = HistoryFilterForm(request.GET, membership=membership)
    context = {"campaign": campaign, "membership": membership, "form": form, "groups": []}
    if not form.is_valid():
        return render(request, "journal/history.html", context, status=400)
    data = form.cleaned_data
    entries = filtered_entries(membership, data)
    page = keyset_page(entries, before=data.get("before"), after=data.get("after"))
    if page.older is not None and page.entries:
        # One line per action: the page ends with the whole of its oldest action.
        last = page.entries[-1]
        rest = list(entries.filter(batch=last.batch, id__lt=last.pk).order_by("-id"))
        if rest:
            page.entries += rest
            page.older = rest[-1].pk if entries.filter(id__lt=rest[-1].pk).exists() else None
    state = standing.standing(campaign.pk)
    standing.mark(campaign.pk, page.entries, state)
    if membership.is_gm:
        sizes = batch_sizes(page.entries, state.undone_by)
        for entry in page.entries:
            entry.batch_changes = sizes.get(entry.batch, 0)
            entry.undo_confirm = undo_question(entry.batch_changes)
    query = form.filter_query()
    context |= _seal_context(campaign.pk, request.GET.get("seal"))
    context |= {
        "page": page,
        "groups": group_entries(campaign.pk, page.entries),
        "query": urlencode(query),
        "older_url": _page_url(campaign.pk, query, before=page.older),
        "newer_url": _page_url(campaign.pk, query, after=page.newer),
        "oldest_url": _page_url(campaign.pk, query, after=0),
        "newest_url": _page_url(campaign.pk, query),
    }
    status = 400 if context["seal_problem"] == "bad" else 200
    return render(request, "journal/history.html", context, status=status)


def _seal_context(campaign_id: int, pasted: str | None) -> dict:
    """The log's seal as it is now and, when one was pasted, what checking it found."""
    context = {"seal": seal_for(campaign_id), "pasted_seal": pasted or "", "seal_problem": None}
    context["seal_at"] = sealed_at(context["seal"])
    if not pasted:
        return context
    try:
        check = check_seal(campaign_id, Seal.parse(pasted))
    except BadSeal:
        return context | {"seal_problem": "bad", "seal_message": bad_seal_message()}
    return context | {
        "seal": check.current,
        "seal_at": sealed_at(check.current),
        "seal_problem": check.problem,
        "seal_extends": check.extends,
        "seal_message": check_message(check),
    }


@login_required
@require_GET
def history_seal(request, campaign_id):
    """The log's seal as JSON, and whether the log still extends `?seal=` (a seal an open
    dashboard or phone saw before: static/live.js warns when it does not)."""
    membership = get_membership(request, campaign_id)
    pasted = request.GET.get("seal", "")
    current = seal_for(membership.campaign_id)
    body = {"seal": str(current), "count": current.count, "at": sealed_at(current)}
    if not pasted:
        return JsonResponse(body)
    try:
        check = check_seal(membership.campaign_id, Seal.parse(pasted))
    except BadSeal:
        return JsonResponse({**body, "error": bad_seal_message()}, status=400)
    current = check.current
    return JsonResponse(
        {
            "seal": str(current),
            "count": current.count,
            "at": sealed_at(current),
            "checked": str(check.seal),
            "extends": check.extends,
            "problem": check.problem,
            "message": check_message(check),
        }
    )


def _page_url(campaign_id, query, **cursor) -> str | None:
    if any(value is None for value in cursor.values()):
        return None
    params = urlencode({**query, **cursor})
    return reverse("history", args=[campaign_id]) + (f"?{params}" if params else "")


@login_required
@require_GET
def history_export(request, campaign_id, fmt):
    """The filtered history as a file, streamed; the same visibility as the pages."""
    if fmt not in FORMATS:
        raise Http404
    membership = get_membership(request, campaign_id)
    form = HistoryFilterForm(request.GET, membership=membership)
    if not form.is_valid():
        errors = "; ".join(str(e) for errors in form.errors.values() for e in errors)
        return HttpResponse(errors, content_type="text/plain; charset=utf-8", status=400)
    entries = filtered_entries(membership, form.cleaned_data).order_by("-id")
    content_type, writer = FORMATS[fmt]
    lang = current_language()
    # Taken before the entries are read: the export holds at least what the seal seals.
    seal = seal_for(membership.campaign_id)
    state = standing.standing(membership.campaign_id)
    if writer is None:
        title = _("History of %(name)s") % {"name": membership.campaign.name}
        body = exports.as_markdown(entries, lang, title, seal=seal, state=state)
    else:
        body = writer(entries, lang, seal=seal, state=state)
    response = StreamingHttpResponse(body, content_type=content_type)
    # A CSV holds entries only: its seal is in its name (and on the history page), where a
    # spreadsheet does not read it as a row.
    sealed = f"-{seal}" if fmt == "csv" else ""
    filename = f"chroniqueur-{campaign_id}-history{sealed}.{fmt}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _recap(request, campaign_id, session_id):
    membership = get_membership(request, campaign_id)
    session = get_object_or_404(PlaySession, pk=session_id, campaign_id=campaign_id)
    seal = seal_for(membership.campaign_id)
    entries = session_entries(membership, session).iterator(chunk_size=exports.CHUNK)
    state = standing.standing(membership.campaign_id)
    lang = current_language()
    return (
        membership,
        session,
        seal,
        recaps.build(session, entries, state, lang, membership=membership),
    )


@login_required
@require_GET
def session_recap(request, campaign_id, session_id):
    """The recap as Markdown, sealed: what was played, undone actions left out."""
    membership, session, seal, recap = _recap(request, campaign_id, session_id)
    title = _("%(name)s: session recap") % {"name": membership.campaign.name}
    text = exports.recap_markdown(recap, current_language(), title, seal=seal)
    response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="recap-{session.pk}.md"'
    return response


@login_required
@require_GET
def session_recap_page(request, campaign_id, session_id):
    """The recap as a page: the same recap as the Markdown, with the seal it was read at."""
    membership, session, seal, recap = _recap(request, campaign_id, session_id)
    lang = current_language()
    index = 1 if lang == "en" else 0
    real, game = recaps.when_text(recap, lang)
    rows = [
        {
            "line": line,
            "values": [
                (
                    field_name(name)[index],
                    line.shown("start", name, index),
                    line.shown("end", name, index),
                )
                for name in ("pv", "flux", "vital")
            ],
            "conditions": line.shown("end", "conditions", index),
            "illness": line.shown("end", "illness", index) if line.end.get("illness") else "",
            "illness_name": (line.end.get("illness") or {}).get("name", ""),
        }
        for line in recap.characters
    ]
    context = {
        "campaign": membership.campaign,
        "membership": membership,
        "session": session,
        "recap": recap,
        "real_when": real,
        "game_when": game,
        "summary": recaps.summary_text(recap, lang),
        "rows": rows,
        "seal": seal,
        "seal_at": sealed_at(seal),
    }
    return render(request, "journal/recap.html", context)


@login_required
@require_POST
def session_start(request, campaign_id):
    membership = get_gm_membership(request, campaign_id)
    services.session_start(campaign_id=membership.campaign_id, user=request.user)
    messages.success(request, _("A new play session has begun."))
    return redirect("history", membership.campaign_id)


@login_required
@require_POST
def entry_reveal(request, campaign_id, entry_id):
    """The GM reveals a sealed roll: a new entry everyone sees, with the roll in
    full; every open page then checks it against the commitment it holds (static/sealed.js).
    htmx gets the answer in place of the button; a plain form goes back where it came from."""
    membership = get_gm_membership(request, campaign_id)
    try:
        reveal = services.roll_reveal(
            campaign_id=membership.campaign_id, entry_id=entry_id, actor=request.user
        )
    except AuditEntry.DoesNotExist:
        raise Http404 from None
    except services.RevealRefused as refused:
        if refused.code == services.ALREADY_REVEALED:
            message = _("This roll has already been revealed.")
        else:
            message = _("Only a roll the GM alone saw, sealed when it was rolled, can be revealed.")
        return _reveal_answer(request, membership, message, status=400)
    message = _("Roll no. %(entry)s revealed to the players (entry no. %(reveal)s).") % {
        "entry": entry_id,
        "reveal": reveal.pk,
    }
    if request.htmx:
        return _reveal_answer(request, membership, message)
    messages.success(request, message)
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = reverse("history", args=[membership.campaign_id]) + f"#entry-{reveal.pk}"
    return redirect(back)


def _reveal_answer(request, membership, message, *, status=200):
    template = "journal/reveal.html#answer" if request.htmx else "journal/reveal.html"
    context = {
        "campaign": membership.campaign,
        "membership": membership,
        "message": message,
        "refused": status >= 400,
    }
    return render(request, template, context, status=status)
