"""Seals as people read them: the line printed at the end of exports and recaps, and what a
check of a pasted seal says (journal/audit.py makes and checks seals)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from journal.audit import Seal, SealCheck
from journal.texts import current_language, real_date


def sealed_at(seal: Seal) -> str:
    """When the sealed entry was written, in local time, as a sentence writes a date
    (« 4 décembre 2026 à 08 h 35 »: the sentence says « le »); empty for an empty log."""
    if seal.at is None:
        return ""
    return real_date(seal.at, current_language(), article=False)


def seal_sentence(seal: Seal) -> str:
    """One line for the end of an export or a recap, in the active language."""
    when = sealed_at(seal)
    if when:
        text = ngettext(
            "Seal of the log: %(seal)s (%(count)s entry, up to %(when)s).",
            "Seal of the log: %(seal)s (%(count)s entries, up to %(when)s).",
            seal.count,
        ) % {
            "seal": seal,
            "count": seal.count,
            "when": when,
        }
    else:
        text = _("Seal of the log: %(seal)s (no entry yet).") % {"seal": seal}
    return (
        text
        + " "
        + _(
            "Keep it: the history page, or manage.py verify_log --seal, proves that a later log "
            "still extends it."
        )
    )


def check_message(check: SealCheck) -> str:
    """What the check of a seal found, in the active language."""
    seal = check.seal
    if check.problem is None:
        return _("This log does extend this seal.")
    if check.problem == "other_campaign":
        return _("This seal belongs to another campaign.")
    if check.problem == "missing":
        return _(
            "This log does NOT extend this seal: entry no. %(entry)s, the last one it seals, "
            "is no longer in the log. The end of the log was deleted."
        ) % {"entry": seal.entry_id}
    if check.problem == "changed":
        return _(
            "This log does NOT extend this seal: entry no. %(entry)s is no longer the entry "
            "that was sealed. The log was rewritten."
        ) % {"entry": seal.entry_id}
    return _(
        "This log does NOT extend this seal: entry no. %(entry)s was altered after it was written."
    ) % {"entry": check.chain.entry_id}


def bad_seal_message() -> str:
    return _("This is not a seal. A seal looks like CHQ1-12-3456-789-0123456789abcdef.")
