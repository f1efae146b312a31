"""French that reads naturally in the history: "à la demande d’alice", never
"de alice", and a roll with nobody behind it says so instead of "à la demande de les règles"."""

import pytest
from django.urls import reverse

from journal.texts import de, rolled_by
from tests.play.steps import run


@pytest.mark.parametrize(
    ("name", "expected"),
    [("alice", "d’alice"), ("Émile", "d’Émile"), ("olivia_joueuse", "d’olivia_joueuse")],
)
def test_de_elides_before_a_vowel(name, expected):
    assert de(name) == expected


@pytest.mark.parametrize("name", ["bruno", "gaelle_mj", "Hugo", "Yann", "42"])
def test_de_stays_whole_before_anything_else(name):
    # An initial h or y may or may not elide, by the name's sound: "de" is the safe side.
    assert de(name) == f"de {name}"


def test_a_server_roll_says_who_asked_for_it():
    assert rolled_by(False, "alice") == (
        "par le serveur, à la demande d’alice",
        "by the server, asked by alice",
    )
    assert rolled_by(False, "bruno")[0] == "par le serveur, à la demande de bruno"


def test_a_roll_nobody_asked_for_says_the_rules_made_it():
    assert rolled_by(False, "") == (
        "par le serveur, comme le veulent les règles",
        "by the server, as the rules require",
    )


def test_a_typed_in_die_says_who_typed_it():
    assert rolled_by(True, "alice") == (
        "saisi par alice depuis un vrai dé",
        "typed in by alice from a physical die",
    )


def test_the_history_and_the_markdown_export_elide_before_a_player_name(
    campaign, other_player, other_pc, other_player_client
):
    data = {"stat": "ADR", "difficulty": "10"}
    run(campaign, other_player, "check", data, character=other_pc)  # the server rolls
    french = {"accept-language": "fr"}
    page = other_player_client.get(reverse("history", args=[campaign.pk]), headers=french)
    assert "par le serveur, à la demande d’olivia_joueuse" in page.content.decode()
    export = other_player_client.get(
        reverse("history_export", args=[campaign.pk, "md"]), headers=french
    )
    markdown = b"".join(export.streaming_content).decode()
    assert "à la demande d’olivia\\_joueuse" in markdown  # "_" escaped for Markdown
    assert "de olivia" not in markdown
