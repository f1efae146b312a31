"""What a card says of a character's conditions reads once, in each language."""

import re

import pytest
from django.urls import reverse

from characters.models import Condition
from play.selectors import condition_line
from rules import engine


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            0,
            ("Exténué", "(Flux à 0) : un D20 impair vaut 0 ; pas de long voyage avant un repos ; "),
        ),
        (1, ("Exhausted", "(Flux at 0): an odd D20 counts as 0; no long-distance travel until ")),
    ],
)
def test_a_condition_line_names_the_condition_once(lang, expected):
    name, rest = condition_line(engine.Condition(engine.ConditionKind.EXTENUE, "flux"), lang)
    assert (name, rest[: len(expected[1])]) == expected


def test_a_gm_typed_cause_reads_once_too():
    name, rest = condition_line(engine.Condition(engine.ConditionKind.GENE, "filet"), 0)
    assert (name, rest) == ("Gêné", "(filet) : −1 action ; prend fin quand le MJ le retire.")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_card_names_each_condition_once(gm_client, campaign, pc, language):
    Condition.objects.create(character=pc, kind="extenue", cause="flux")
    Condition.objects.create(character=pc, kind="gene", cause="filet")
    response = gm_client.get(
        reverse("character_card", args=[campaign.pk, pc.pk]),
        headers={"accept-language": language},
    )
    items = re.findall(r'<ul class="conditions".*?</ul>', response.content.decode(), re.S)
    text = re.sub(r"<[^>]+>", "", items[0])
    names = ("Exténué", "Gêné") if language == "fr" else ("Exhausted", "Hindered")
    for name in names:
        assert text.count(name) == 1, text


@pytest.mark.parametrize(
    ("gender", "gene", "paralyse"),
    [("elle", "Gênée", "Paralysée"), ("il", "Gêné", "Paralysé"), ("iel", "Gêné·e", "Paralysé·e")],
)
def test_r22_r23_a_condition_label_agrees_with_the_character(gender, gene, paralyse):
    for kind, expected in (
        (engine.ConditionKind.GENE, gene),
        (engine.ConditionKind.PARALYSE, paralyse),
    ):
        name, rest = condition_line(engine.Condition(kind, "filet"), 0, gender)
        assert name == expected and rest.startswith("(filet) : ")
    # English has no agreement; a list of conditions with no character keeps the rules' word.
    assert condition_line(engine.Condition(engine.ConditionKind.GENE, "filet"), 1, gender)[0] == (
        "Hindered"
    )
    assert condition_line(engine.Condition(engine.ConditionKind.GENE, "filet"), 0)[0] == "Gêné"


@pytest.mark.parametrize("view", ["cards", "compact"])
def test_r22_the_card_row_and_fight_chips_say_gene_as_she_is(
    gm_client, gm, campaign, pc, other_pc, view
):
    from campaign.models import Membership
    from characters.models import Character
    from play import services
    from play.selectors import fight_view

    Character.objects.filter(pk=pc.pk).update(gender="elle")
    Character.objects.filter(pk=other_pc.pk).update(gender="il")
    for character in (pc, other_pc):
        Condition.objects.create(character=character, kind="gene", cause="filet")
    Membership.objects.filter(campaign=campaign, user=gm).update(dashboard_view=view)
    html = gm_client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    text = re.sub(r"<[^>]+>", " ", html)
    assert "Gênée" in text and re.search(r"\bGêné\b(?!e|·)", text)
    assert "Gêné·e" not in text
    services.fight_start(campaign_id=campaign.pk, actor=gm, character_ids=[pc.pk, other_pc.pk])
    campaign.refresh_from_db()
    chips = {c.character.pk: c.conditions for c in fight_view(campaign).combatants}
    assert chips == {pc.pk: ("Gênée",), other_pc.pk: ("Gêné",)}


def test_r22_a_player_reads_the_party_s_conditions_agreeing(player_client, campaign, pc, other_pc):
    from characters.models import Character

    Character.objects.filter(pk=other_pc.pk).update(gender="elle")
    Condition.objects.create(character=other_pc, kind="paralyse", cause="filet")
    html = player_client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert "Paralysée" in html
