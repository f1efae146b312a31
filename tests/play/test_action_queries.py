"""The queries of a GM's quick action from the dashboard, locked so that they cannot creep
back: every query of a GM's action is CPU that every table pays (bench/post.py measures it).

Each answer is drawn from the rows the action locked and wrote (play/services/runner.py,
play/views.py action_fragments): the campaign, the acted card and the bars are not read
again. Counted as Django counts them, the transaction's BEGIN and COMMIT, the session and
the user included. Before this work: damage, heal and Flux 30, a test 27.
"""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters.models import Character
from journal.models import AuditEntry
from tests.play.steps import from_dashboard

# The view: session, user, membership, character. The action: BEGIN, the campaign locked,
# its rows (with whether they have conditions, sequels, requests: none here, so none read),
# UPDATE, the log's head, the entry (a test: its roll), the chart's point, its hour read and
# written (a changed PV or Flux), the live event, COMMIT. The answer: the log panel (2).
# (Who is at risk on the clock's way, R11, is read with the rows; the fight section is not
# drawn again when nothing it shows changed.)
LIMITS = {"damage": 17, "heal": 17, "spend_flux": 17, "check": 15}
BODIES = {
    "damage": {"amount": "3"},
    "heal": {"amount": "1"},
    "spend_flux": {"amount": "1"},
    "check": {"stat": "VAI", "difficulty": "10", "dice": "14"},
}


@pytest.mark.parametrize("name", LIMITS)
def test_a_quick_action_from_the_dashboard_stays_within_its_queries(gm_client, world, name):
    if name == "heal":
        Character.objects.filter(pk=world.pc.pk).update(pv=5)
    url = reverse("character_action", args=[world.campaign.pk, world.pc.pk, name])
    assert gm_client.get(reverse("campaign", args=[world.campaign.pk])).status_code == 200
    # An action before: the play session is open (the first entry after a pause opens one).
    other = reverse("character_action", args=[world.campaign.pk, world.npc.pk, "damage"])
    warm = {"amount": "1", "visibility": "everyone"}
    assert gm_client.post(other, warm, **from_dashboard(world)).status_code == 200
    before = AuditEntry.objects.count()
    with CaptureQueriesContext(connection) as queries:
        response = gm_client.post(
            url, {"visibility": "everyone", **BODIES[name]}, **from_dashboard(world)
        )
    assert response.status_code == 200
    content = response.content.decode()
    # The whole answer still: the result, the acted card as written, the log.
    assert 'data-testid="explanation"' in content
    card = re.search(rf'<article[^>]*id="character-{world.pc.pk}"[^>]*>', content)
    assert card and "hx-swap-oob" in card.group(0)
    version = Character.objects.get(pk=world.pc.pk).version
    assert f'data-version="{version}"' in card.group(0)
    assert re.search(r'id="roll-log"[^>]*hx-swap-oob="true"', content)
    assert re.search(r'id="party-bar"[^>]*hx-swap-oob="true"', content)
    assert AuditEntry.objects.count() > before  # every write logged
    assert len(queries) <= LIMITS[name], "\n".join(q["sql"][:120] for q in queries)


def test_the_answer_draws_the_card_from_the_state_written_even_when_conditions_change(
    gm_client, world
):
    """A change of conditions (R26) is written beside the row: the card is read again, and
    shows the condition the action added."""
    url = reverse("character_action", args=[world.campaign.pk, world.pc.pk, "add_condition"])
    response = gm_client.post(
        url, {"visibility": "everyone", "kind": "gene"}, **from_dashboard(world)
    )
    assert response.status_code == 200
    card = response.content.decode().split(f'id="character-{world.pc.pk}"', 1)[1]
    assert "Gêné" in card.split("</article>", 1)[0]


def test_a_character_with_conditions_and_sequels_is_read_with_them(gm_client, world):
    """Conditions and sequels are read apart only for the rows that have some: the engine
    and the card see them (R26: Gêné, a sequel's malus)."""
    from characters.models import Condition, Sequel

    Condition.objects.create(character=world.pc, kind="gene", cause="gm")
    Sequel.objects.create(character=world.pc, stat="VAI", cause="Une toux sanglante", d6=5)
    url = reverse("character_action", args=[world.campaign.pk, world.pc.pk, "damage"])
    response = gm_client.post(
        url, {"visibility": "everyone", "amount": "5"}, **from_dashboard(world)
    )
    assert response.status_code == 200
    content = response.content.decode()
    assert f'id="character-{world.pc.pk}"' in content, content[:3000]
    card = content.split(f'id="character-{world.pc.pk}"', 1)[1]
    card = card.split("</article>", 1)[0]
    assert "Gêné" in card and "Une toux sanglante" in card
    assert Condition.objects.filter(character=world.pc).count() == 1  # kept as it was
