"""The history, one line per action (journal/lines.py): words a player uses, the entries
with their ids one click away, filters still working on actions, and an action never cut
between two pages."""

import re

from django.urls import reverse

from journal.models import AuditEntry
from journal.selectors import PAGE_SIZE
from play import services
from tests.play.steps import run

FRENCH = {"accept-language": "fr"}


def actions(html: str) -> list[str]:
    return re.findall(r'<li class="action[^"]*"[^>]*data-testid="action">', html)


def summary(html: str, first_id: int) -> str:
    match = re.search(rf'id="action-{first_id}".*?<summary>(.*?)</summary>', html, re.S)
    assert match, first_id
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", match.group(1))).strip()


def test_r10_one_line_per_action_in_a_players_words_with_its_entries_under_it(gm_client, world):
    campaign, pc = world.campaign, world.pc
    # R10: 14 − 2 PA: PV 11 → −1, a failed Survie test (typed 1): into the coma.
    damage = run(
        campaign,
        world.gm,
        "damage",
        {"amount": "14", "cause": "morsure de rat"},
        character=pc,
        typed=[1],
    )
    run(campaign, world.gm, "spend_flux", {"amount": "2"}, character=world.other_pc)
    html = gm_client.get(reverse("history", args=[campaign.pk]), headers=FRENCH).content.decode()

    assert len(actions(html)) == 2
    line = summary(html, damage.entries[0].pk)
    assert (
        "Isaure prend 14 dégâts (morsure de rat) : PV 11 → −1, Survie ratée, tombe dans le coma"
        in line
    )
    assert f"{len(damage.entries)} entrées" in line
    # Every entry of the action is under its line, with its id, one click away.
    for entry in damage.entries:
        assert f'id="entry-{entry.pk}"' in html and f"#{entry.pk}" in html
    assert "Gaspard dépense 2 Flux : Flux 6 → 4" in html


def test_an_undone_action_is_struck_on_its_line(gm_client, world):
    damage = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    services.entry_undo(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        entry_id=damage.entries[-1].pk,
        whole_action=True,
    )
    html = gm_client.get(reverse("history", args=[world.campaign.pk]), headers=FRENCH)
    html = html.content.decode()
    assert 'class="action undone"' in html and 'data-testid="action-undone"' in html
    # The undo's own line is a sentence that quotes what it undid.
    assert "Le MJ annule « Isaure prend 5 dégâts » : Isaure PV " in html
    assert "Annulation #" not in html


def test_filters_keep_working_on_actions(gm_client, world):
    run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    run(world.campaign, world.gm, "spend_flux", {"amount": "2"}, character=world.other_pc)
    url = reverse("history", args=[world.campaign.pk])
    html = gm_client.get(url, {"character": world.other_pc.pk}, headers=FRENCH).content.decode()
    assert len(actions(html)) == 1 and "Gaspard dépense 2 Flux" in html
    assert "Isaure prend" not in html


def test_a_page_ends_with_the_whole_of_its_oldest_action(gm_client, world):
    campaign = world.campaign
    # Enough actions for a second page; each damage to 0 writes several entries.
    while AuditEntry.objects.filter(campaign=campaign).count() < PAGE_SIZE + 5:
        run(campaign, world.gm, "spend_flux", {"amount": "1"}, character=world.other_pc)
        run(campaign, world.gm, "restore_flux", {"amount": "1"}, character=world.other_pc)
        run(campaign, world.gm, "damage", {"amount": "3"}, character=world.npc)
        run(campaign, world.gm, "heal", {"amount": "3"}, character=world.npc)
    response = gm_client.get(reverse("history", args=[campaign.pk]))
    page = response.context["page"].entries
    last = page[-1]
    assert set(AuditEntry.objects.filter(batch=last.batch).values_list("pk", flat=True)) <= {
        e.pk for e in page
    }
