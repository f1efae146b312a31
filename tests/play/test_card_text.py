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
