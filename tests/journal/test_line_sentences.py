"""The history's line of an action is a sentence a player says (journal/lines.py): who did
or took what, then what moved, with true minus signs; the party's actions say the time that
passed and what it did to each character."""

import pytest
from django.utils import translation

from characters.models import Character
from journal.lines import action_text, with_genders
from play import services
from tests.play.steps import run

pytestmark = pytest.mark.django_db


def said(result, language="fr") -> str:
    with translation.override(language):
        return action_text(with_genders(list(result.entries)))


def test_r3_r10_damage_says_who_takes_how_much_and_what_it_did(world):
    # R3: 14 − 2 PA = 12: PV 11 → −1; R10: a Survie test failed (typed 1): the coma.
    damage = run(
        world.campaign,
        world.gm,
        "damage",
        {"amount": "14", "cause": "morsure de rat"},
        character=world.pc,
        typed=[1],
    )
    assert said(damage) == (
        "Isaure prend 14 dégâts (morsure de rat) : PV 11 → −1, Survie ratée, tombe dans le coma"
    )
    assert said(damage, "en") == (
        "Isaure takes 14 damage (morsure de rat): PV 11 → −1, Survie failed, falls into a coma"
    )


def test_r1_r2_healing_and_flux_say_the_amount(world):
    run(world.campaign, world.gm, "damage", {"amount": "6"}, character=world.other_pc)
    heal = run(world.campaign, world.gm, "heal", {"amount": "2"}, character=world.other_pc)
    assert said(heal).startswith("Gaspard récupère 2 PV : PV ")
    spend = run(world.campaign, world.gm, "spend_flux", {"amount": "2"}, character=world.other_pc)
    assert said(spend) == "Gaspard dépense 2 Flux : Flux 6 → 4"
    back = run(world.campaign, world.gm, "restore_flux", {"amount": "1"}, character=world.other_pc)
    assert said(back) == "Gaspard récupère 1 Flux : Flux 4 → 5"
    assert said(back, "en") == "Gaspard recovers 1 Flux: Flux 4 → 5"


@pytest.mark.parametrize(
    ("gender", "gains", "loses"),
    [
        ("il", "Gaspard devient Gêné", "Gaspard n’est plus Gêné"),
        ("elle", "Gaspard devient Gênée", "Gaspard n’est plus Gênée"),
        ("iel", "Gaspard devient Gêné·e", "Gaspard n’est plus Gêné·e"),
    ],
)
def test_r22_r26_a_condition_on_and_off_agrees_with_the_character(world, gender, gains, loses):
    Character.objects.filter(pk=world.other_pc.pk).update(gender=gender)
    on = run(world.campaign, world.gm, "add_condition", {"kind": "gene"}, character=world.other_pc)
    assert said(on) == gains
    # The explanation the GM reads after the action, from the engine, agrees too.
    assert f"Gaspard — {gains[8:]} (" in on.outcome.explanation_fr
    off = run(
        world.campaign, world.gm, "remove_condition", {"kind": "gene"}, character=world.other_pc
    )
    assert said(off) == loses
    assert said(off, "en") == "Gaspard is no longer Hindered"


def test_r5_a_test_says_passed_or_failed_and_against_what(world):
    stat = next(iter(world.campaign.stats))
    check = run(
        world.campaign,
        world.gm,
        "check",
        {"stat": stat, "difficulty": "10"},
        character=world.other_pc,
        typed=[5],
    )
    line = said(check)
    assert line.startswith(f"Gaspard rate un test {'d’' if stat[0] in 'AEIOU' else 'de '}{stat}")
    assert "contre 10)" in line
    assert "fails a" in said(check, "en")


def test_r11_r17_r32_the_night_says_its_hours_and_each_character(world):
    run(world.campaign, world.gm, "damage", {"amount": "14"}, character=world.pc, typed=[1])
    run(world.campaign, world.gm, "spend_flux", {"amount": "2"}, character=world.other_pc)
    night = run(world.campaign, world.gm, "night", {"hours": "8"})
    line = said(night)
    assert line.startswith("La nuit passe (8 h) : ")
    assert "Gaspard +2 Flux" in line
    # Isaure in a coma loses a PV an hour (R11): « −1 PV »…, and dies or stays in the coma.
    assert "Isaure −" in line and ("meurt" in line or "reste dans le coma" in line)
    clock = run(world.campaign, world.gm, "clock", {"minutes": "60"})
    assert said(clock).startswith("Le temps passe (1 h)")
    assert said(clock, "en").startswith("Time passes (1 h)")


def test_r12_r13_stabilisation_and_waking(world):
    run(world.campaign, world.gm, "damage", {"amount": "14"}, character=world.pc, typed=[1])
    result = services.character_stabilise(
        character_id=world.pc.pk, actor=world.gm, healer_esp=3, difficulty=10, dice=[20]
    )
    assert said(result).startswith("Isaure est stabilisé·e (")
    # R13: a 20 wakes her; R14: the sequel's D6 (typed 3) says which statistic it costs.
    wake = services.character_wake(character_id=world.pc.pk, actor=world.gm, dice=[20, 3])
    line = said(wake)
    assert line.startswith("Isaure se réveille (") and "séquelle" in line
