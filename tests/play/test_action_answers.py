"""What an action's htmx answer redraws: every part of the page it changed, as a
fresh render of that page shows it after the action; the result in its slot with an Undo for
its changes, undone in place; and the parts a page may refetch alone.
"""

import re

import pytest
from django.urls import reverse

from campaign.models import Campaign
from journal.models import AuditEntry
from play.actions import ACTIONS, PARTY_ACTIONS
from play.proposals import proposal_make
from tests.play.steps import body, prepared, run

HTMX = {"HTTP_HX_REQUEST": "true"}
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')


def htmx_from(url: str, target: str | None = None) -> dict:
    headers = {**HTMX, "HTTP_HX_CURRENT_URL": f"http://testserver{url}"}
    if target:
        headers["HTTP_HX_TARGET"] = target
    return headers


def dashboard_url(world) -> str:
    return reverse("campaign", args=[world.campaign.pk])


def part(html: str, element_id: str) -> str | None:
    """The element with this id, from its opening tag to its matching closing tag."""
    start = re.search(rf'<(\w+)\b[^>]*\bid="{re.escape(element_id)}"', html)
    if start is None:
        return None
    tag = start.group(1)
    depth, position = 0, start.start()
    for match in re.finditer(rf"<(/?){tag}\b[^>]*>", html[position:]):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return html[position : position + match.end()]
    raise AssertionError(f"#{element_id} is not closed")


def same(markup: str) -> str:
    """Markup as compared: the out-of-band mark and the per-response CSRF token left out."""
    return CSRF.sub(r"\1\2", markup.replace(' hx-swap-oob="true"', ""))


def assert_redrawn_as_the_page_shows_it(gm_client, world, answer) -> str:
    """Every part the answer redraws is exactly what the dashboard now shows."""
    page = gm_client.get(dashboard_url(world)).content.decode()
    content = answer.content.decode()
    ids = ["party-bar", "roll-log"] + [
        f"character-{pk}" for pk in [card.pk for card in answer.context["changed_characters"]]
    ]
    for element_id in ids:
        drawn = part(content, element_id)
        assert drawn is not None, f"#{element_id} not redrawn"
        assert 'hx-swap-oob="true"' in drawn.split(">", 1)[0], element_id
        assert same(drawn) == same(part(page, element_id)), element_id
    return page


def act(gm_client, world, name, **overrides):
    url = prepared(world, name)
    response = gm_client.post(
        url, body(world, name, **overrides), **htmx_from(dashboard_url(world))
    )
    assert response.status_code == 200, response.content.decode()[:2000]
    return response


# ---------------------------------------------------------------------------------------------
# Every part an action changed, redrawn from the state after the commit


def test_end_of_scene_redraws_the_clock_bar_with_the_new_scene(gm_client, world):
    answer = act(gm_client, world, "end_scene")
    bar = part(answer.content.decode(), "party-bar")
    assert "scène 2" in bar and "scène 1" not in bar
    assert "scène : 1 → 2" in part(answer.content.decode(), "roll-log")
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)


@pytest.mark.parametrize(
    ("data", "clock"),
    [({"minutes": "10"}, "08:10"), ({"minutes": "60"}, "09:00"), ({"to_morning": "on"}, "06:00")],
)
def test_the_clock_redraws_its_bar_at_the_new_time(gm_client, world, data, clock):
    answer = act(gm_client, world, "clock", **{"minutes": "", **data})
    assert clock in part(answer.content.decode(), "party-bar")
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)


def test_an_hour_rest_roll_shows_the_points_to_share_and_sharing_them_clears_it(gm_client, world):
    answer = act(gm_client, world, "hour_rest")
    bar = part(answer.content.decode(), "party-bar")
    assert re.search(r"heure[^<]*: 3|hour rest to share: 3", bar), bar
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)

    answer = gm_client.post(
        reverse("party_action", args=[world.campaign.pk, "share_hour_rest"]),
        {"visibility": "everyone", f"pv_{world.pc.pk}": "1", f"flux_{world.pc.pk}": "2"},
        **htmx_from(dashboard_url(world)),
    )
    assert answer.status_code == 200
    assert Campaign.objects.get(pk=world.campaign.pk).pending_hour_rest is None
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)
    assert "<strong>" not in part(answer.content.decode(), "party-bar")


@pytest.mark.parametrize("name", sorted(PARTY_ACTIONS))
def test_every_party_action_redraws_what_the_page_shows_after_it(gm_client, world, name):
    answer = act(gm_client, world, name)
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)


@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_every_character_action_redraws_what_the_page_shows_after_it(gm_client, world, name):
    """No character action moves the clock today; if one does, its bar is redrawn too."""
    answer = act(gm_client, world, name)
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)


def test_a_character_action_after_the_clock_moved_elsewhere_redraws_the_new_time(gm_client, world):
    """The bar comes from the campaign as stored, not as the request found it."""
    run(world.campaign, world.gm, "clock", {"minutes": "90"})  # another tab
    answer = act(gm_client, world, "damage")
    assert "09:30" in part(answer.content.decode(), "party-bar")
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)


# ---------------------------------------------------------------------------------------------
# The result in its slot; only parts the page has


def test_the_result_goes_beside_the_card_and_closes_its_panel(gm_client, world):
    answer = act(gm_client, world, "damage")
    content = answer.content.decode()
    result = content[: content.index("hx-swap-oob")]
    assert 'data-testid="explanation"' in result
    change = AuditEntry.objects.filter(kind="change").latest("id")
    undo = reverse("action_undo", args=[world.campaign.pk, change.pk])
    assert f'hx-post="{undo}" hx-target="#result-{world.pc.pk}"' in result
    assert f'<div id="panel-{world.pc.pk}" class="panel-slot" hx-swap-oob="true"></div>' in content
    assert 'hx-swap-oob="innerHTML:.result-slot"' in content  # older results go


def test_a_party_result_goes_under_the_party_bar(gm_client, world):
    content = act(gm_client, world, "end_scene").content.decode()
    assert 'hx-target="#result-party"' in content
    assert '<div id="panel-party" class="panel-slot" hx-swap-oob="true"></div>' in content


def test_a_roll_that_changes_nothing_offers_no_undo(gm_client, world):
    content = act(gm_client, world, "check", dice="19").content.decode()
    assert 'data-testid="undo"' not in content


def test_on_a_sheet_the_answer_redraws_only_that_card(gm_client, world):
    """A part the page does not have would be an htmx error (oobErrorNoTarget)."""
    world.pc.vital = "coma"
    world.pc.pv = -2
    world.pc.save()
    sheet = reverse("character", args=[world.campaign.pk, world.pc.pk])
    url = reverse("character_action", args=[world.campaign.pk, world.pc.pk, "stabilise"])
    data = {"visibility": "everyone", "healer": world.other_pc.pk, "difficulty": "10"}
    answer = gm_client.post(url, {**data, "dice": "12"}, **htmx_from(sheet))
    assert answer.status_code == 200
    content = answer.content.decode()
    assert re.search(rf'id="character-{world.pc.pk}"[^>]*hx-swap-oob', content)
    assert f'id="character-{world.other_pc.pk}"' not in content  # the healer: not on the sheet
    assert 'id="party-bar"' not in content and 'id="roll-log"' not in content
    page = gm_client.get(sheet).content.decode()
    assert f'id="result-{world.pc.pk}"' in page and f'id="panel-{world.pc.pk}"' in page


# ---------------------------------------------------------------------------------------------
# Undo from the card


def _undo(gm_client, world, entry, target, **data):
    url = reverse("action_undo", args=[world.campaign.pk, entry.pk])
    return gm_client.post(url, data, **htmx_from(dashboard_url(world), target))


def test_undo_from_the_card_answers_in_place_and_redraws_the_page(gm_client, world):
    result = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    answer = _undo(gm_client, world, result.entries[-1], f"result-{world.pc.pk}")
    assert answer.status_code == 200
    content = answer.content.decode()
    assert "Annulation de #" in content
    assert f'hx-target="#result-{world.pc.pk}"' in content  # the undo can be undone
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)
    world.pc.refresh_from_db()
    assert world.pc.pv == 11


def test_undo_of_an_end_of_scene_brings_the_scene_back_on_the_bar(gm_client, world):
    result = run(world.campaign, world.gm, "end_scene")
    answer = _undo(gm_client, world, result.entries[-1], "result-party")
    assert "scène 1" in part(answer.content.decode(), "party-bar")
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)


def test_an_undo_conflict_is_explained_in_place_and_can_be_forced(gm_client, world):
    result = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    run(world.campaign, world.gm, "heal", {"amount": "1"}, character=world.pc)
    entry = result.entries[-1]
    before = AuditEntry.objects.count()
    answer = _undo(gm_client, world, entry, f"result-{world.pc.pk}")
    assert answer.status_code == 409
    content = answer.content.decode()
    assert "<html" not in content and 'data-testid="undo-conflict"' in content
    url = reverse("action_undo", args=[world.campaign.pk, entry.pk])
    assert f'hx-post="{url}" hx-target="#result-{world.pc.pk}"' in content
    assert AuditEntry.objects.count() == before

    answer = _undo(gm_client, world, entry, f"result-{world.pc.pk}", force="1")
    assert answer.status_code == 200
    world.pc.refresh_from_db()
    assert world.pc.pv == 11


def test_undo_from_the_history_is_unchanged(gm_client, world):
    result = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    url = reverse("entry_undo", args=[world.campaign.pk, result.entries[-1].pk])
    response = gm_client.post(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("history", args=[world.campaign.pk]))


# ---------------------------------------------------------------------------------------------
# The parts a page refetches alone


@pytest.mark.parametrize(
    ("target", "template"),
    [("party-bar", "play/dashboard.html#party-bar"), ("roll-log", "play/dashboard.html#log")],
)
def test_the_dashboard_answers_a_refetch_of_one_part_with_that_part(
    gm_client, world, target, template
):
    from tests.helpers import first_template

    run(world.campaign, world.gm, "end_scene")
    url = dashboard_url(world)
    response = gm_client.get(url, **htmx_from(url, target))
    assert response.status_code == 200
    assert first_template(response) == template
    content = response.content.decode()
    assert content.strip().startswith("<section") and f'id="{target}"' in content
    assert same(part(content, target)) == same(part(gm_client.get(url).content.decode(), target))


@pytest.mark.parametrize("target", ["panel-3", "result-party", "panel-party"])
def test_closing_a_panel_or_a_result_gets_it_empty(gm_client, world, target):
    url = dashboard_url(world)
    response = gm_client.get(url, **htmx_from(url, target))
    assert (response.status_code, response.content) == (200, b"")


def test_a_player_always_gets_the_whole_page(player_client, world):
    url = dashboard_url(world)
    response = player_client.get(url, **htmx_from(url, "party-bar"))
    assert response.status_code == 200
    assert "<html" in response.content.decode()


def test_the_log_says_up_to_which_entry_it_shows(gm_client, world):
    result = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    page = gm_client.get(dashboard_url(world)).content.decode()
    assert f'data-log-id="{result.entries[-1].pk}"' in part(page, "roll-log")


# ---------------------------------------------------------------------------------------------
# Panels that keep working


def test_a_card_keeps_its_refresh_attributes_to_itself(gm_client, world):
    """Inherited, a card's hx-swap="outerHTML" made its panel links replace the panel: its
    partial is named for static/live.js (data-src), htmx swaps nothing of its own."""
    page = gm_client.get(dashboard_url(world)).content.decode()
    card = part(page, f"character-{world.pc.pk}")
    tag = card.split(">", 1)[0]
    assert 'data-src="' in tag and 'hx-disinherit="*"' in tag and "hx-swap" not in tag
    assert 'hx-disinherit="*"' in part(page, "party-bar").split(">", 1)[0]


def test_a_form_posts_with_htmx_only_in_a_panel(gm_client, world):
    url = reverse("character_action", args=[world.campaign.pk, world.pc.pk, "check"])
    panel = gm_client.get(url, **htmx_from(dashboard_url(world))).content.decode()
    assert f'hx-post="{url}"' in panel
    cancel = f'hx-get="{dashboard_url(world)}" hx-target="#panel-{world.pc.pk}"'
    assert cancel in panel
    page = gm_client.get(url).content.decode()  # its own page: no panel, no result to target
    assert f'action="{url}"' in page and "hx-post" not in part(page, "main")


def test_a_card_an_action_redraws_counts_the_proposals_waiting_as_the_card_itself_does(
    gm_client, world
):
    """The action reads its rows with the proposals' count written in SQL (play/services/
    runner.py locked_rows), the card's own page with the ORM's (play/reads.py): both say 2."""
    for amount in (1, 2):
        proposal_make(
            character_id=world.pc.pk,
            actor=world.player,
            action="damage",
            arguments={"amount": amount},
        )
    answer = act(gm_client, world, "damage")
    assert 'data-proposals="2"' in part(answer.content.decode(), f"character-{world.pc.pk}")
    assert_redrawn_as_the_page_shows_it(gm_client, world, answer)
