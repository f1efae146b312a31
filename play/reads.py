"""What the services and the pages read alike, in one place below both (the services may not
import the selectors or the parts, which import them)."""

from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce

from play.models import Proposal, ProposalStatus

_pending_count = (
    Proposal.objects.filter(character=OuterRef("pk"), status=ProposalStatus.PENDING)
    .order_by()
    .values("character")
    .annotate(n=Count("pk"))
    .values("n")
)


# How many of a character's proposals wait, as an annotation (read in the row's own query).
PENDING_PROPOSALS = Coalesce(Subquery(_pending_count), 0)

# The vital states the clock may kill in (R10, R11: `engine.may_die_on_the_clock`).
AT_RISK = ("coma", "borrowed_time")
