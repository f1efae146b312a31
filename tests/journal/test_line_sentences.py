"""The history's line of an action is a sentence a player says (journal/lines.py): who did
or took what, then what moved, with true minus signs; the party's actions say the time that
passed and what it did to each character."""

from types import SimpleNamespace

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


# ---------------------------------------------------------------------------------------------
# Undos, fights and rarer actions: sentences too, not « Label · field : a → b ».


def _batch(result):
    """The whole batch of `result`, as the history reads it (an undo's line needs the action
    it undid: `with_genders` finds it)."""
    from journal.models import AuditEntry

    return AuditEntry.objects.filter(batch=result.entries[0].batch).order_by("id")


def told(result, language="fr") -> str:
    with translation.override(language):
        return action_text(with_genders(list(_batch(result))))


def test_r32_an_undo_quotes_the_action_it_undid_and_counts_what_it_took_back(world):
    night = services.clock_advance(campaign_id=world.campaign.pk, actor=world.gm, minutes=600)
    undo = services.entry_undo(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        entry_id=night.entries[0].pk,
        whole_action=True,
        force=True,
    )
    changes = [e for e in undo.entries if e.kind == "change"]
    s = "s" if len(changes) > 1 else ""
    assert told(undo) == (
        f"Le MJ annule « Le temps passe (10 h) » : {len(changes)} changement{s} défait{s}"
    )
    assert told(undo, "en") == (
        f"The GM undoes “Time passes (10 h)”: {len(changes)} change{s} taken back"
    )
    again = services.entry_undo(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        entry_id=undo.entries[0].pk,
        whole_action=True,
        force=True,
    )
    assert told(again).startswith("Le MJ rétablit « Le temps passe (10 h) » : ")
    assert "refait" in told(again)
    assert "#" not in told(undo) + told(again)  # no entry ids in the sentence


def test_r3_a_small_undo_says_what_came_back(world):
    damage = run(world.campaign, world.gm, "damage", {"amount": "5"}, character=world.pc)
    undo = services.entry_undo(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        entry_id=damage.entries[-1].pk,
        whole_action=True,
    )
    assert told(undo) == "Le MJ annule « Isaure prend 5 dégâts » : Isaure PV 8 → 11"
    assert told(undo, "en") == "The GM undoes “Isaure takes 5 damage”: Isaure PV 8 → 11"


def test_r33_fight_lines_are_sentences(world):
    c, gm = world.campaign, world.gm
    ids = [world.pc.pk, world.other_pc.pk, world.npc.pk]
    start = services.fight_start(
        campaign_id=c.pk, actor=gm, character_ids=ids, surprised_ids=[world.npc.pk]
    )
    assert told(start) == (
        "Le combat commence : Isaure, Gaspard, Le Vicomte masque ; "
        "Le Vicomte masque devient Surpris·e"
    )
    assert told(start, "en").startswith("The fight begins: Isaure, Gaspard, Le Vicomte masque")
    spend = services.fight_spend(character_id=world.pc.pk, actor=gm, what="action")
    assert told(spend) == "Isaure dépense une action (1 restante), manche 1"
    assert told(services.fight_next_turn(campaign_id=c.pk, actor=gm)) == "Gaspard joue (manche 1)"
    # A name that begins with an article: « Le Vicomte masque joue », never « au tour de Le ».
    turn = services.fight_next_turn(campaign_id=c.pk, actor=gm)
    assert told(turn) == "Le Vicomte masque joue (manche 1)"
    round_two = services.fight_next_turn(campaign_id=c.pk, actor=gm)
    assert told(round_two) == (
        "La manche 2 commence : Isaure joue en premier, Le Vicomte masque n’est plus Surpris·e"
    )
    assert told(round_two, "en").startswith("Round 2 begins: Isaure plays first")
    order = services.fight_set_order(
        campaign_id=c.pk, actor=gm, character_ids=[world.other_pc.pk, world.pc.pk]
    )
    assert told(order) == (
        "Le MJ change l’ordre du combat : Gaspard, Isaure (Isaure joue), "
        "Le Vicomte masque quitte le combat"
    )
    # Reinforcements and a flight, mid-round (R33): who, where, which round.
    joined = services.fight_join(campaign_id=c.pk, actor=gm, character_id=world.npc.pk, place=1)
    assert told(joined) == "Le Vicomte masque rejoint le combat (place 1), manche 2 (Isaure joue)"
    assert told(joined, "en").startswith("Le Vicomte masque joins the fight (place 1), round 2")
    left = services.fight_leave(campaign_id=c.pk, actor=gm, character_id=world.other_pc.pk)
    assert told(left) == "Gaspard quitte le combat, manche 2 (Isaure joue)"
    end = services.fight_end(campaign_id=c.pk, actor=gm)
    assert told(end) == "Le combat se termine (manche 2)"
    assert told(end, "en") == "The fight ends (round 2)"


def test_r9_r27_r28_r29_rarer_actions_are_sentences(world):
    c, gm = world.campaign, world.gm
    fall = services.character_fall(character_id=world.other_pc.pk, actor=gm, storeys=2, dice=[3])
    assert told(fall) == "Gaspard fait une chute : 8 dégâts, PV 18 → 10"
    ill = services.character_fall_ill(
        character_id=world.other_pc.pk, actor=gm, severity=2, name="fièvre", dice=[1, 3]
    )
    assert told(ill).startswith("Gaspard rate un test de Constitution (")
    assert told(ill).endswith(" : tombe malade (fièvre) pour 4 jours")
    remedy = services.remedy_take(character_id=world.other_pc.pk, actor=gm, dice=[1])
    assert told(remedy) == "Gaspard prend un remède : la maladie passe de 4 j à 3 j"
    free = services.free_roll(
        campaign_id=c.pk, actor=gm, expression="2d6+1", character_id=world.pc.pk, dice=[4, 2]
    )
    assert told(free).startswith("Isaure lance 2d6+1 : 4 + 2 + 1 = 7")
    assert told(free, "en").startswith("Isaure rolls 2d6+1: 4 + 2 + 1 = 7")
    update = services.character_update(character_id=world.pc.pk, actor=gm, name="Isaure la Grande")
    assert told(update) == "La fiche d’Isaure la Grande change : nom Isaure → Isaure la Grande"
    create = services.character_create(
        campaign_id=c.pk, actor=gm, name="Garde", pv_max=8, flux_max=2
    )
    assert told(create) == "Garde rejoint la campagne (PJ) : PV max 8, Flux max 2"
    assert told(create, "en") == "Garde joins the campaign (PC): max PV 8, max Flux 2"
    settings = services.campaign_settings_update(
        campaign_id=c.pk, actor=gm, party_visibility="bars"
    )
    assert told(settings).startswith(
        "Le MJ change le réglage « ce que les joueurs voient du reste du groupe » : "
    )


def test_proposals_say_who_proposed_and_what_the_gm_did(world):
    from journal.models import AuditEntry
    from play import proposals

    def last():
        return told(SimpleNamespace(entries=[AuditEntry.objects.order_by("-id").first()]))

    made = proposals.proposal_make(
        character_id=world.pc.pk,
        actor=world.player,
        action="damage",
        arguments={"amount": 2},
        note="rat",
    )
    name = world.player.username
    assert last() == f"{name} propose pour Isaure « Dégâts : 2 » — « rat »"
    proposals.proposal_refuse(
        campaign_id=world.campaign.pk, proposal_id=made.pk, actor=world.gm, reply="non"
    )
    assert last() == f"Le MJ refuse la proposition #{made.pk} de {name} (« Dégâts : 2 ») — « non »"


def test_r1_an_undo_a_player_reads_quotes_only_what_the_player_may_read(world):
    secret = run(
        world.campaign, world.gm, "damage", {"amount": "3"}, character=world.pc, visibility="gm"
    )
    undo = services.entry_undo(
        campaign_id=world.campaign.pk,
        actor=world.gm,
        entry_id=secret.entries[-1].pk,
        whole_action=True,
    )
    assert told(undo).startswith("Le MJ annule « Isaure prend 3 dégâts »")  # the GM's
    # Were the undo public (an undo of a GM-only entry in a public action), it would not quote
    # what the player may not read: it names the action by its entry.
    entries = list(_batch(undo))
    for entry in entries:
        entry.visibility = "everyone"
    with translation.override("fr"):
        line = action_text(with_genders(entries))
    first = min(e.reverts_id for e in entries)
    assert line == f"Le MJ annule l’action de #{first} : Isaure PV 10 → 11"
