"""The characters' chart rows kept with the log (journal/points.py) are derivable from the
log: after actions, undos and undos of undos they equal a recomputation, `chart_points`
proves it (or rebuilds them), the whole-campaign chart drawn from them equals the chart drawn
from the log's counted entries for every viewer, and a long campaign's chart aggregated in the
database draws the same picture as the one read row by row."""

import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from campaign.models import Membership, PartyVisibility
from journal import charts, points
from journal.models import AuditEntry, ChartHour, ChartPoint, EntryKind
from journal.standing import standing
from journal.visibility import visible_entries
from play import services
from rules.engine import RuleError
from tests.journal.test_dice_tally import _play

pytestmark = pytest.mark.django_db


def _member(campaign, user):
    return Membership.objects.select_related("campaign").get(campaign=campaign, user=user)


def _log_chart(member, character):
    """The chart recomputed from the log: the entries the viewer may see, counted."""
    entries = visible_entries(member).filter(
        character_id=character.pk, kind=EntryKind.CHANGE, field__in=points.CHART_FIELDS
    )
    rows = standing(member.campaign_id).counted(entries).order_by().values_list(*charts.ROW)
    return charts._chart(character, list(rows))


def _picture(chart):
    return (
        [(line.name, line.path, line.ticks, line.zero) for line in chart.lines],
        [(m.kind, m.x, m.level, m.times, m.entry_id, m.label) for m in chart.marks],
        chart.days,
        chart.summary if not chart.empty else "",
    )


def _table(chart):
    return [(s.at, s.entry_id, s.pv, s.flux, s.moments) for s in chart.steps]


def _more(rng, campaign, characters, gm, steps):
    """Flux, conditions and rests beside _play's tests, damage, healing and undos."""
    for _ in range(steps):
        character = rng.choice(characters)
        move = rng.random()
        try:
            if move < 0.4:
                services.flux_spend(character_id=character.pk, actor=gm, amount=rng.randint(1, 3))
            elif move < 0.6:
                kind = rng.choice(["ebranle", "gene"])
                services.condition_add(
                    character_id=character.pk,
                    actor=gm,
                    kind=kind,
                    visibility=rng.choice(["everyone", "gm"]),
                )
            else:
                services.character_damage(
                    character_id=character.pk, actor=gm, amount=rng.randint(1, 8)
                )
        except RuleError:
            pass


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("party", [PartyVisibility.BARS, PartyVisibility.STATE])
def test_r1_r3_the_kept_rows_and_the_chart_equal_the_log_after_undos(
    campaign, pc, other_pc, npc, gm, player, other_player, seed, party
):
    campaign.party_visibility = party
    campaign.save()
    rng = random.Random(seed)
    _more(rng, campaign, [pc, other_pc, npc], gm, 6)
    _play(rng, campaign, [pc, other_pc, npc], gm, player, 40)
    _more(rng, campaign, [pc, other_pc, npc], gm, 6)
    assert AuditEntry.objects.filter(campaign=campaign, reverts__isnull=False).exists()
    assert points.kept(campaign) == points.recompute(campaign)
    for user in (gm, player, other_player):
        member = _member(campaign, user)
        for character in charts.chartable_characters(member):
            kept = charts.character_chart(member, character)
            log = _log_chart(member, character)
            assert _picture(kept) == _picture(log)
            assert _table(kept) == _table(log)


def test_r1_an_undone_change_leaves_the_chart_and_its_undo_undone_brings_it_back(campaign, pc, gm):
    member = _member(campaign, gm)
    services.character_damage(character_id=pc.pk, actor=gm, amount=2, ignores_pa=True)
    first = _table(charts.character_chart(member, pc))
    done = services.character_damage(character_id=pc.pk, actor=gm, amount=3, ignores_pa=True)
    both = _table(charts.character_chart(member, pc))
    assert len(both) == len(first) + 1
    change = next(e for e in done.entries if e.field == "pv")
    undo = services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=change.pk, whole_action=True
    )
    assert not ChartPoint.objects.filter(entry_id=change.pk).exists()
    assert _table(charts.character_chart(member, pc)) == first
    assert _picture(charts.character_chart(member, pc)) == _picture(_log_chart(member, pc))
    services.entry_undo(
        campaign_id=campaign.pk, actor=gm, entry_id=undo.entries[0].pk, whole_action=True
    )
    assert ChartPoint.objects.filter(entry_id=change.pk).exists()
    assert _table(charts.character_chart(member, pc)) == both
    assert points.kept(campaign) == points.recompute(campaign)


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the aggregation runs in PostgreSQL only"
)
@pytest.mark.parametrize("seed", [4, 5])
def test_r1_r11_a_long_campaigns_aggregated_chart_draws_the_same_picture(
    campaign, pc, other_pc, npc, gm, player, monkeypatch, seed
):
    rng = random.Random(seed)
    _more(rng, campaign, [pc, other_pc, npc], gm, 10)
    _play(rng, campaign, [pc, other_pc, npc], gm, player, 40)
    for user in (gm, player):
        member = _member(campaign, user)
        for character in charts.chartable_characters(member):
            exact = charts.character_chart(member, character)
            with monkeypatch.context() as patch:
                patch.setattr(charts, "AGGREGATE_ABOVE", 0)
                aggregated = charts.character_chart(member, character)
            if exact.lines:
                assert aggregated.step_count is not None  # drawn from the aggregation
            assert _picture(aggregated) == _picture(exact)
            assert _table(aggregated) == _table(exact)
            assert aggregated.total_steps == len(exact.steps)


def test_the_command_proves_the_rows_and_rebuilds_wrong_ones(campaign, pc, gm):
    services.character_damage(character_id=pc.pk, actor=gm, amount=2, ignores_pa=True)
    assert ChartPoint.objects.filter(campaign=campaign).exists()
    out = StringIO()
    call_command("chart_points", campaign.pk, stdout=out)
    assert "equal the log" in out.getvalue()
    ChartPoint.objects.filter(campaign=campaign).update(after=99)
    with pytest.raises(CommandError):
        call_command("chart_points", campaign.pk, stdout=StringIO(), stderr=StringIO())
    ChartPoint.objects.filter(campaign=campaign).delete()
    with pytest.raises(CommandError):
        call_command("chart_points", campaign.pk, stdout=StringIO(), stderr=StringIO())
    call_command("chart_points", campaign.pk, "--rebuild", stdout=StringIO())
    call_command("chart_points", stdout=StringIO())
    with pytest.raises(CommandError):
        call_command("chart_points", 999999, stdout=StringIO())


def _coarse_campaign(rng, campaign, characters, gm, player):
    """Actions, undos and clock moves over a game time long enough for a coarse chart (more
    than an hour per column) once the summed hour is shortened to 20 seconds."""
    for _ in range(4):
        _more(rng, campaign, characters, gm, 4)
        _play(rng, campaign, characters, gm, player, 12)
        services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=240)


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the aggregation runs in PostgreSQL only"
)
@pytest.mark.parametrize("seed", [6, 7, 8])
def test_r1_r3_a_coarse_chart_drawn_from_the_summed_hours_equals_the_changes(
    campaign, pc, other_pc, npc, gm, player, monkeypatch, seed
):
    # An hour of 20 seconds: this campaign's hours of game time are some 1,500 "hours", more
    # than one per column, as a long campaign's are.
    monkeypatch.setattr(points, "HOUR", 20)
    campaign.party_visibility = PartyVisibility.STATE
    campaign.save()
    rng = random.Random(seed)
    _coarse_campaign(rng, campaign, [pc, other_pc, npc], gm, player)
    assert AuditEntry.objects.filter(campaign=campaign, reverts__isnull=False).exists()
    assert points.kept_hours(campaign) == points.recompute_hours(campaign)
    assert points.hour_differences(campaign) == (0, 0)
    assert ChartHour.objects.filter(campaign=campaign, zeros__gt=0).exists()  # falls to 0
    read = []
    real_hours = charts._hours

    def spy(*args):
        read.append(args)
        return real_hours(*args)

    monkeypatch.setattr(charts, "_hours", spy)
    coarse = 0
    for user in (gm, player):
        member = _member(campaign, user)
        for character in charts.chartable_characters(member):
            exact = charts.character_chart(member, character)
            with monkeypatch.context() as patch:
                patch.setattr(charts, "AGGREGATE_ABOVE", 0)
                aggregated = charts.character_chart(member, character)
            if not exact.lines:
                continue
            coarse += charts._x_axis(exact.steps[0].at, exact.steps[-1].at).coarse
            assert aggregated.step_count is not None
            assert _picture(aggregated) == _picture(exact)
            assert _table(aggregated) == _table(exact)
            assert aggregated.total_steps == len(exact.steps)
    assert coarse and read  # some charts were coarse, and read the hours


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the aggregation runs in PostgreSQL only"
)
def test_r1_a_gm_only_change_never_moves_a_players_summed_line(
    campaign, pc, gm, player, monkeypatch
):
    monkeypatch.setattr(points, "HOUR", 20)
    monkeypatch.setattr(charts, "AGGREGATE_ABOVE", 0)
    for _ in range(3):
        services.character_damage(character_id=pc.pk, actor=gm, amount=1, ignores_pa=True)
        services.clock_advance(campaign_id=campaign.pk, actor=gm, minutes=300)
    member = _member(campaign, player)
    seen = charts.character_chart(member, pc)
    assert seen.lines and charts._x_axis(seen.steps[0].at, seen.steps[-1].at).coarse
    # A GM-only blow goes into the GM's hours only: what the player reads is the same.
    services.character_damage(
        character_id=pc.pk, actor=gm, amount=4, ignores_pa=True, visibility="gm"
    )
    assert ChartHour.objects.filter(character=pc, visibility="gm").exists()
    assert _picture(charts.character_chart(member, pc)) == _picture(seen)
    assert _picture(charts.character_chart(_member(campaign, gm), pc)) != _picture(seen)


def test_the_command_proves_the_summed_hours_and_rebuilds_them(campaign, pc, gm):
    services.character_damage(character_id=pc.pk, actor=gm, amount=2, ignores_pa=True)
    services.flux_spend(character_id=pc.pk, actor=gm, amount=1)
    assert ChartHour.objects.filter(campaign=campaign).count() == 2
    out = StringIO()
    call_command("chart_points", campaign.pk, stdout=out)
    assert "2 hours" in out.getvalue()
    ChartHour.objects.filter(campaign=campaign, field="pv").update(low=-50)
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("chart_points", campaign.pk, stdout=StringIO(), stderr=err)
    assert "hours: 1 missing, 1 not in the log" in err.getvalue()
    call_command("chart_points", campaign.pk, "--rebuild", stdout=StringIO())
    assert points.kept_hours(campaign) == points.recompute_hours(campaign)
    call_command("chart_points", campaign.pk, stdout=StringIO())
