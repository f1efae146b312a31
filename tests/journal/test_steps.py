"""Every step of the reasoning kept: the entries an action already writes hold every
rule step its outcome showed, covered by the hash, shown in the history and the exports as
fully as in the moment; a sequel never has an empty cause."""

import csv
import io
import json

from django.urls import reverse

from journal import audit
from journal.models import AuditEntry
from play import actions
from play.services import character_wake
from tests.helpers import entries, raw, trigger_disabled
from tests.play.steps import put, run


def steps(result) -> list[str]:
    """Every step stored on the action's entries, in French, as "R27 · …"."""
    return [step for entry in result.entries for step in entry.steps_text("fr")]


def body(response) -> str:
    assert response.status_code == 200
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def test_r27_a_softened_fall_keeps_the_storey_shift_and_the_halving(world, gm_client):
    data = {"storeys": "1", "surface": "rough", "soften": "spell", "cause": "le toit"}
    # 1 storey on rough ground counts as 2 (R27): 1D10+5 → 6 + 5 = 11, halved: 6 (PA ignored).
    result = run(world.campaign, world.gm, "fall", data, character=world.pc, typed=[6])
    kept = steps(result)
    assert result.outcome.explanation_lines("fr") == tuple(kept)  # all of it, in order
    assert (
        "R27 · Isaure — chute de 1 étage, sol accidenté ou en pente : compte pour 2 étages" in kept
    )
    assert any(s.startswith("R27 · Isaure — chute amortie : 11 / 2 = 6") for s in kept)
    assert any("PA ignorés" in s and s.startswith("R27 ·") for s in kept)
    # On the entries the action writes anyway: one per roll and change, none added.
    assert len(result.entries) == len(result.outcome.events)
    assert [bool(e.steps) for e in result.entries].count(True) == 1
    assert audit.verify_chain(world.campaign) is None

    page = body(gm_client.get(reverse("history", args=[world.campaign.pk])))
    assert "compte pour 2 étages" in page and "chute amortie : 11 / 2 = 6" in page
    assert "Le raisonnement (" in page

    url = reverse("history_export", args=[world.campaign.pk, "md"])
    markdown = body(gm_client.get(url))
    assert "  - R27 · Isaure — chute amortie : 11 / 2 = 6" in markdown
    document = json.loads(body(gm_client.get(url.replace(".md", ".json"))))
    stored = [step for record in document["entries"] for step in record["steps"]]
    assert sorted(stored) == sorted(kept)
    text = body(gm_client.get(url.replace(".md", ".csv"))).lstrip("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    cells = [row["Raisonnement"] for row in rows if row.get("Raisonnement")]
    assert len(cells) == 1 and "compte pour 2 étages" in cells[0] and " | " in cells[0]


def test_r3_damage_that_ignores_pa_says_so_in_the_history(world):
    result = run(
        world.campaign, world.gm, "damage", {"amount": "4", "ignores_pa": "on"}, character=world.pc
    )
    assert steps(result) == ["R3 · Isaure — 4 dégâts (PA ignorés) ; PV 11 → 7"]


def test_r5_r26_a_check_keeps_its_modifiers_and_the_odd_die_counting_zero(world):
    pc = put(world.pc, flux=0, conditions=[("extenue", "flux")])
    data = {"stat": "VAI", "skill": "Survie", "difficulty": "10", "modifier": "2"}
    result = run(world.campaign, world.gm, "check", data, character=pc, typed=[13])
    (kept,) = steps(result)
    assert kept.startswith("R5 · Isaure — Survie (VAI) : 0 (d20 : 13 impair → 0")
    assert "+ 2 (MJ)" in kept


def test_the_steps_are_covered_by_the_hash(world):
    run(world.campaign, world.gm, "damage", {"amount": "4", "ignores_pa": "on"}, character=world.pc)
    (entry,) = entries(world.campaign)
    with trigger_disabled():
        raw(
            "UPDATE journal_auditentry SET steps = %s WHERE id = %s",
            [json.dumps([{"rule_id": "R3", "fr": "4 dégâts − 2 PA", "en": "x"}]), entry.pk],
        )
    assert audit.verify_chain(world.campaign) == audit.ChainProblem(
        entry.pk, "its content does not match its hash", 1
    )


def stabilised(world, **fields):
    return put(
        world.pc,
        vital="stabilised",
        pv=0,
        stabilised_at=world.campaign.clock,
        **fields,
    )


def test_r14_a_sequel_takes_the_cause_of_the_damage_that_knocked_the_character_out(world):
    pc = stabilised(world, down_cause="une chute du toit")
    result = run(world.campaign, world.gm, "wake", {}, character=pc, typed=[20, 5])
    assert "R14 · Isaure — séquelle « une chute du toit » : VAI −1, Survie −1 (R7)" in steps(result)
    sequels = [e for e in result.entries if e.field == "sequels"]
    assert sequels[0].after[-1]["cause"] == "une chute du toit"


def test_r14_with_no_known_cause_the_wake_form_asks_for_one(world, gm_client):
    pc = stabilised(world, down_cause="")
    form = actions.ACTIONS["wake"].form(
        {"visibility": "everyone"}, campaign=world.campaign, character=pc
    )
    assert not form.is_valid()
    assert form.errors["sequel_cause"] == [
        "Rien ne dit ce qui a mis ce personnage à terre\u00a0: écrivez le traumatisme de la "
        "séquelle (R14)."
    ]
    count = AuditEntry.objects.count()
    response = gm_client.post(
        reverse("character_action", args=[world.campaign.pk, pc.pk, "wake"]),
        {"visibility": "everyone"},
    )
    assert response.status_code == 400
    assert "écrivez le traumatisme de la séquelle (R14)" in response.content.decode()
    assert AuditEntry.objects.count() == count

    result = run(
        world.campaign,
        world.gm,
        "wake",
        {"sequel_cause": "une brûlure"},
        character=pc,
        typed=[20, 5],
    )
    assert "R14 · Isaure — séquelle « une brûlure » : VAI −1, Survie −1 (R7)" in steps(result)


def test_r14_a_sequel_without_any_cause_never_reads_empty_quotes(world):
    """The service called without a cause (the clock's own tries do so too): no «  »."""
    pc = stabilised(world, down_cause="")
    result = character_wake(character_id=pc.pk, actor=world.gm, dice=[20, 5])
    kept = steps(result)
    assert "R14 · Isaure — séquelle : VAI −1, Survie −1 (R7)" in kept
    assert not any("«  »" in s or "« »" in s for s in kept)
    assert not any("«  »" in e.text_fr for e in result.entries)
