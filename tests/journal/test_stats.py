"""The dice's own story and the PV/Flux charts: counted from what stands, as each viewer may
see it (journal/stats.py, journal/charts.py)."""

from fractions import Fraction

import pytest
from django.urls import reverse

from campaign.models import Membership, Visibility
from journal import services as journal_services
from journal.charts import character_chart
from journal.stats import dice_story, passing_faces
from play import services

pytestmark = pytest.mark.django_db


def _stat(campaign):
    return next(iter(campaign.stats))


def _check(campaign, pc, actor, face=None, **kwargs):
    return services.character_check(
        character_id=pc.pk,
        actor=actor,
        stat=_stat(campaign),
        difficulty=kwargs.pop("difficulty", 10),
        dice=None if face is None else [face],
        **kwargs,
    )


def _member(campaign, user):
    return Membership.objects.select_related("campaign").get(campaign=campaign, user=user)


def _roller(story, label):
    return next(t for t in story.rollers if t.label == label)


def test_r5_tests_successes_against_their_exact_odds_naturals_and_survie(campaign, pc, gm):
    value = pc.stats[_stat(campaign)]
    for face in (20, 1, 10):
        _check(campaign, pc, gm, face, skill="Survie")
    story = dice_story(_member(campaign, gm))
    gm_tally = _roller(story, gm.username)
    assert gm_tally.role == "gm"
    assert gm_tally.tests == 3
    assert (gm_tally.natural_1, gm_tally.natural_20) == (1, 1)
    # Survie: Isaure has no sequel or illness, so d20 + stat ≥ 10 passes on 10 − stat … 20.
    passing = Fraction(min(20, 11 + value), 20)
    assert gm_tally.expected == 3 * passing
    assert gm_tally.successes == 2  # 20 and 10 pass, 1 fails
    assert (gm_tally.survie_passed, gm_tally.survie_failed) == (2, 1)
    (isaure,) = story.characters
    assert (isaure.label, isaure.tests, isaure.successes) == ("Isaure", 3, 2)


def test_r9_server_dice_and_dice_typed_in_are_counted_apart(campaign, pc, gm):
    _check(campaign, pc, gm, 7)
    _check(campaign, pc, gm)
    story = dice_story(_member(campaign, gm))
    gm_tally = _roller(story, gm.username)
    assert sum(gm_tally.typed_faces) == 1 and gm_tally.typed_faces[6] == 1
    assert sum(gm_tally.server_faces) == 1
    assert sum(story.typed.typed_faces) == 1 and sum(story.server.server_faces) == 1


def test_an_undone_action_counts_in_no_statistic_and_its_undo_undone_brings_it_back(
    campaign, pc, gm
):
    # 11 PV and 11 damage: R10's Survie test (typed in: 20) in the same action as the damage.
    done = services.character_damage(character_id=pc.pk, actor=gm, amount=30, dice=[20])
    assert any(e.kind == "roll" for e in done.entries)
    member = _member(campaign, gm)
    assert dice_story(member).characters[0].tests == 1
    change = next(e for e in done.entries if e.kind == "change")
    undo = services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=change.pk, whole_action=True
    )
    assert dice_story(member).characters == []
    chart = character_chart(member, pc)
    assert chart.empty  # the damage and its undo both drop out
    services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=undo.entries[0].pk, whole_action=True
    )
    assert dice_story(member).characters[0].tests == 1
    assert [s.pv for s in character_chart(member, pc).steps][-1] <= 0


def test_a_sealed_roll_counts_for_a_player_only_once_revealed(campaign, pc, gm, player):
    sealed = _check(campaign, pc, gm, 12, visibility=Visibility.GM_ONLY)
    assert dice_story(_member(campaign, gm)).characters[0].tests == 1
    assert dice_story(_member(campaign, player)).characters == []
    journal_services.roll_reveal(campaign_id=campaign.pk, entry_id=sealed.entries[0].pk, actor=gm)
    (seen,) = dice_story(_member(campaign, player)).characters
    assert seen.tests == 1 and seen.typed_faces[11] == 1


def test_a_gm_only_change_never_moves_a_players_line(campaign, pc, gm, player):
    services.character_damage(
        character_id=pc.pk, actor=gm, amount=2, ignores_pa=True
    )  # 11 → 9, public
    services.character_damage(
        character_id=pc.pk, actor=gm, amount=3, ignores_pa=True, visibility=Visibility.GM_ONLY
    )  # 9 → 6, the GM's only
    services.character_damage(
        character_id=pc.pk, actor=gm, amount=1, ignores_pa=True
    )  # 6 → 5, public
    gm_line = [s.pv for s in character_chart(_member(campaign, gm), pc).steps]
    player_line = [s.pv for s in character_chart(_member(campaign, player), pc).steps]
    assert gm_line == [11, 9, 6, 5]
    assert player_line == [11, 9, 5]
    assert 6 not in player_line


def test_r10_r11_the_chart_marks_0_pv_and_the_coma(campaign, pc, gm):
    services.character_damage(character_id=pc.pk, actor=gm, amount=30, dice=[1])
    chart = character_chart(_member(campaign, gm), pc)
    kinds = [m.kind for m in chart.moments]
    assert "zero" in kinds
    assert {line.name for line in chart.lines} == {"PV"}
    assert chart.lines[0].zero is not None  # PV below 0: the zero line is drawn


def test_passing_faces_of_an_older_roll_are_rebuilt_from_its_terms():
    roll = {"stat_value": 2, "modifiers": [{"value": -1}], "difficulty": 10, "natural": 4}
    assert passing_faces(roll, natural_extremes=False) == 12  # 9 … 20
    assert passing_faces({**roll, "die_rule": "R6", "natural": 3}, False) == 6  # even of 9…20
    assert passing_faces({**roll, "difficulty": 40}, natural_extremes=True) == 1  # the 20
    assert passing_faces({**roll, "passing_faces": 7}, False) == 7


def test_it_shows_the_statistics_page_to_members_only(
    campaign, pc, gm, gm_client, player_client, client, outsider
):
    _check(campaign, pc, gm, 20)
    url = reverse("statistics", args=[campaign.pk])
    page = gm_client.get(url)
    assert page.status_code == 200
    content = page.content.decode()
    assert 'data-testid="verdict"' in content and "100" in content
    assert player_client.get(url).status_code == 200
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    assert gm_client.get(url + "?session=abc").status_code == 404
    assert gm_client.get(url + "?session=999999").status_code == 404


def test_it_gives_a_verdict_on_the_page_from_100_typed_rolls(campaign, pc, gm, gm_client):
    for i in range(100):
        _check(campaign, pc, gm, i % 20 + 1)
    page = gm_client.get(reverse("statistics", args=[campaign.pk]))
    assert 'data-verdict="fair"' in page.content.decode()


def test_it_draws_a_characters_chart_for_who_may_see_it(
    campaign, pc, npc, gm, gm_client, player_client, player
):
    services.character_damage(character_id=pc.pk, actor=gm, amount=2, ignores_pa=True)
    url = reverse("character_chart", args=[campaign.pk, pc.pk])
    page = player_client.get(url)
    assert page.status_code == 200
    assert "<svg" in page.content.decode() and "chart-step" in page.content.decode()
    # A player may chart only what the history lets them pick: not the GM's NPC.
    assert (
        player_client.get(reverse("character_chart", args=[campaign.pk, npc.pk])).status_code == 404
    )
    assert gm_client.get(reverse("character_chart", args=[campaign.pk, npc.pk])).status_code == 200


def test_it_draws_the_party_and_the_luck_table_for_a_session(campaign, pc, other_pc, gm, gm_client):
    services.character_damage(character_id=pc.pk, actor=gm, amount=2, ignores_pa=True)
    services.character_damage(character_id=other_pc.pk, actor=gm, amount=1, ignores_pa=True)
    _check(campaign, pc, gm, 15)
    page = gm_client.get(reverse("party_chart", args=[campaign.pk]))
    content = page.content.decode()
    assert page.status_code == 200
    assert content.count('data-testid="chart"') == 2
    assert 'data-testid="luck-table"' in content


def test_the_sheet_and_the_filtered_history_show_the_chart(campaign, pc, gm, player_client):
    services.character_damage(character_id=pc.pk, actor=gm, amount=2, ignores_pa=True)
    sheet = player_client.get(reverse("character", args=[campaign.pk, pc.pk]))
    assert 'data-testid="character-chart"' in sheet.content.decode()
    history = player_client.get(reverse("history", args=[campaign.pk]) + f"?character={pc.pk}")
    assert 'data-testid="character-chart"' in history.content.decode()


def test_a_line_holds_its_first_value_until_its_first_change(campaign, pc, gm):
    services.character_damage(character_id=pc.pk, actor=gm, amount=2, ignores_pa=True)
    services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=120, dice=[])
    services.flux_spend(character_id=pc.pk, actor=gm, amount=3)  # 7 → 4, two hours later
    chart = character_chart(_member(campaign, gm), pc)
    flux = next(line for line in chart.lines if line.name == "Flux")
    move, start_y, level, *rest = flux.path.split(" ")
    # From the left edge at 7, level until the spend, then down to 4: not 4 from the start.
    assert move == "M40"
    assert level.startswith("H") and level != "H40"
    assert rest[0] != f"V{start_y}"  # it steps down at the spend


def test_a_sessions_chart_and_luck_hold_that_session_only(campaign, pc, gm):
    services.character_damage(character_id=pc.pk, actor=gm, amount=2, ignores_pa=True)
    _check(campaign, pc, gm, 5)
    session = journal_services.session_start(campaign_id=campaign.pk, user=gm)
    services.character_damage(character_id=pc.pk, actor=gm, amount=3, ignores_pa=True)
    _check(campaign, pc, gm, 20)
    member = _member(campaign, gm)
    assert [s.pv for s in character_chart(member, pc, session=session).steps] == [9, 6]
    assert [s.pv for s in character_chart(member, pc).steps] == [11, 9, 6]
    (isaure,) = dice_story(member, session).characters
    assert (isaure.tests, isaure.natural_20) == (1, 1)
    assert dice_story(member).characters[0].tests == 2
