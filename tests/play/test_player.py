"""The player's sheet on a phone, the tests they roll themselves (R5, R9), the party view.

Who may roll for a character at all (its owner only) is tests/test_permissions.py's table.
"""

import re

import pytest
from django.urls import reverse

from campaign.models import PartyVisibility
from characters.models import Illness, Sequel
from journal.models import AuditEntry
from tests.helpers import db_state
from tests.play.steps import put

# A test the owner of world.pc asks for: Crochetage (ADR) against 10, their own die a 14.
ROLL = {"stat": "ADR", "skill": "Crochetage", "difficulty": "10", "dice": "14"}


def roll_url(campaign, character):
    return reverse("character_roll", args=[campaign.pk, character.pk])


def sheet_url(campaign, character):
    return reverse("character", args=[campaign.pk, character.pk])


def test_r9_the_owner_types_in_their_die_and_reads_the_explanation(player_client, world):
    response = player_client.post(roll_url(world.campaign, world.pc), ROLL)

    assert response.status_code == 302
    assert response["Location"] == sheet_url(world.campaign, world.pc)
    entry = AuditEntry.objects.get()
    assert (entry.kind, entry.rule_id, entry.character_id) == ("roll", "R5", world.pc.pk)
    assert entry.actor_id == world.player.pk and entry.typed_in
    assert entry.roll["natural"] == 14 and entry.roll["skill"] == "Crochetage"
    assert entry.visibility == world.campaign.default_roll_visibility
    page = player_client.get(response["Location"]).content.decode()
    # A player reads the explanation without the rule's id (« R5 · »: the GM's reference).
    assert re.search(r'class="msg roll info"[^>]*>Isaure — Crochetage \(ADR\) : 14', page)


def test_r9_the_server_rolls_when_the_player_types_nothing(player_client, world):
    data = {**ROLL, "dice": ""}
    response = player_client.post(roll_url(world.campaign, world.pc), data)
    assert response.status_code == 302
    entry = AuditEntry.objects.get()
    assert not entry.typed_in
    assert 1 <= entry.roll["natural"] <= 20


def test_r7_a_player_survie_test_counts_the_sequels(player_client, world):
    Sequel.objects.create(character=world.pc, stat="ADR", cause="Une brûlure", d6=1)
    data = {"stat": "VAI", "skill": "Survie", "difficulty": "10", "dice": "10"}
    player_client.post(roll_url(world.campaign, world.pc), data)
    entry = AuditEntry.objects.get()
    assert [(m["rule_id"], m["value"]) for m in entry.roll["modifiers"]] == [("R7", -1)]


def test_players_give_no_gm_modifier_nor_visibility(player_client, world):
    data = {**ROLL, "modifier": "20", "visibility": "gm"}
    player_client.post(roll_url(world.campaign, world.pc), data)
    entry = AuditEntry.objects.get()
    assert entry.roll["modifiers"] == []
    assert entry.visibility == "everyone"


def test_bad_input_is_shown_in_the_sheet_with_a_400(player_client, world):
    before = db_state()
    data = {"stat": "ZZZ", "difficulty": "0", "dice": "vingt"}
    response = player_client.post(roll_url(world.campaign, world.pc), data)
    assert response.status_code == 400
    form = response.context["roll_form"]
    assert set(form.errors) == {"stat", "difficulty", "dice"}
    assert "vingt" in response.content.decode()
    assert db_state() == before


def test_r10_a_character_in_a_coma_cannot_roll_and_the_player_is_told(player_client, world):
    put(world.pc, vital="coma", pv=-2)
    before = db_state()
    response = player_client.post(roll_url(world.campaign, world.pc), ROLL)
    assert response.status_code == 400
    assert response.context["roll_form"].non_field_errors()
    assert db_state() == before


def test_r10_the_sheet_of_a_character_in_a_coma_offers_no_test(player_client, world):
    put(world.pc, vital="coma", pv=-2)
    response = player_client.get(reverse("character", args=[world.campaign.pk, world.pc.pk]))
    assert response.status_code == 200
    assert response.context["roll_form"] is None
    assert 'data-testid="roll-form"' not in response.content.decode()
    assert "ne peut pas faire de test dans cet état" in response.content.decode()


def test_it_refuses_when_the_campaign_does_not_let_players_roll(player_client, world):
    world.campaign.players_roll = False
    world.campaign.save()
    before = db_state()
    response = player_client.post(roll_url(world.campaign, world.pc), ROLL)
    assert response.status_code == 403
    assert db_state() == before
    page = player_client.get(sheet_url(world.campaign, world.pc)).content.decode()
    assert roll_url(world.campaign, world.pc) not in page


# The sheet


def test_the_owners_sheet_shows_everything_the_rules_leave(player_client, world):
    put(world.pc, conditions=[("ebranle", "gm"), ("gene", "gm")])
    Sequel.objects.create(character=world.pc, stat="VAI", cause="Une toux sanglante", d6=5)
    Illness.objects.create(character=world.pc, name="Fièvre des marais", severity=2, days_left=3)

    response = player_client.get(sheet_url(world.campaign, world.pc))

    content = response.content.decode()
    assert response.status_code == 200
    assert f'id="character-{world.pc.pk}"' in content  # the live card partial
    assert "11 / 14" in content and "7 / 10" in content  # PV, Flux
    # R20: Ébranlé −3 PA (2 → 0), no reflex; R22: Gêné −1 action. Base values struck out.
    assert "<dd>0 <s>2</s></dd>" in content
    assert "<dd>1 <s>2</s></dd>" in content
    assert "<dd>0 <s>1</s></dd>" in content
    # R14: VAI lowered by the sequel, the base value beside it, the cause listed.
    vai = world.pc.stats["VAI"]
    assert f"<dt>VAI</dt><dd>{vai - 1} <small>({vai})</small></dd>" in content
    assert "Une toux sanglante" in content
    assert "3 jours restants" in content or "3 days left" in content
    assert "Fièvre des marais" in content
    assert content.count("prend fin quand le MJ le retire") == 2  # each condition explained
    assert "debout" in content.lower()  # vital state
    assert world.pc.public_notes in content
    assert world.pc.gm_notes not in content
    assert "/act/" not in content  # players never change PV, Flux or conditions
    assert roll_url(world.campaign, world.pc) in content
    assert reverse("check_probability", args=[world.campaign.pk, world.pc.pk]) in content


def test_the_gm_sheet_has_gm_notes_and_no_player_roll_form(gm_client, world):
    content = gm_client.get(sheet_url(world.campaign, world.pc)).content.decode()
    assert world.pc.gm_notes in content
    assert roll_url(world.campaign, world.pc) not in content


def test_the_card_fragment_the_sheet_refreshes_from_still_serves_the_owner(player_client, world):
    response = player_client.get(reverse("character_card", args=[world.campaign.pk, world.pc.pk]))
    assert response.status_code == 200
    assert f'id="character-{world.pc.pk}"' in response.content.decode()


def test_the_player_sees_a_roll_they_made_in_the_history(player_client, world):
    player_client.post(roll_url(world.campaign, world.pc), ROLL)
    entry = AuditEntry.objects.get()
    page = player_client.get(reverse("history", args=[world.campaign.pk])).content.decode()
    assert f'id="entry-{entry.pk}"' in page
    assert "paul_joueur" in page


# The party at a glance


def _party_item(content, character):
    match = re.search(rf'<li id="party-{character.pk}".*?</li>', content, re.S)
    assert match, f"{character.name} is not in the party list"
    return match.group(0)


@pytest.mark.parametrize(
    ("shown", "state", "bars"),
    [
        (PartyVisibility.NOTHING, False, False),
        (PartyVisibility.STATE, True, False),
        (PartyVisibility.BARS, True, True),
    ],
)
def test_the_party_view_follows_party_visibility(player_client, world, shown, state, bars):
    world.campaign.party_visibility = shown
    world.campaign.save()
    put(world.other_pc, conditions=[("surpris", "gm")], pv=5)

    content = player_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()

    item = _party_item(content, world.other_pc)
    assert world.other_pc.name in item
    assert ("Surpris" in item or "Surprised" in item) is state
    assert ("debout" in item.lower() or "up" in item.lower()) is state
    assert ("5 / 18" in item) is bars
    assert "5 / 18" not in content or bars
    assert world.npc.name not in content  # NPCs are the GM's to reveal


@pytest.mark.parametrize("shown", [PartyVisibility.NOTHING, PartyVisibility.BARS])
def test_the_live_refetch_of_a_players_home_gets_both_lists_in_one_answer(
    player_client, world, shown
):
    """static/live.js redraws a player's two lists on every change with one request aimed at
    #own-characters: the answer is those two lists alone (not the whole page), the party's
    marked for an out-of-band swap, through the same party visibility as the page."""
    world.campaign.party_visibility = shown
    world.campaign.save()
    put(world.other_pc, pv=5)
    url = reverse("campaign", args=[world.campaign.pk])
    page = player_client.get(url).content.decode()

    answer = player_client.get(
        url, headers={"HX-Request": "true", "HX-Target": "own-characters"}
    ).content.decode()

    assert answer.lstrip().startswith('<section class="own" id="own-characters"')
    assert "<html" not in answer and 'id="live"' not in answer
    assert re.search(r'id="party-members"[^>]*hx-swap-oob="true"', answer)
    assert 'hx-swap-oob="true"' not in page  # the page itself swaps nothing out of band
    assert _party_item(answer, world.other_pc) == _party_item(page, world.other_pc)
    assert ("5 / 18" in answer) is (shown == PartyVisibility.BARS)
    assert world.npc.name not in answer
    assert world.pc.name in answer  # their own character, in their own list

    party = player_client.get(
        url, headers={"HX-Request": "true", "HX-Target": "party-members"}
    ).content.decode()
    assert party.lstrip().startswith('<section class="panel party" id="party-members"')
    assert "hx-swap-oob" not in party and 'id="own-characters"' not in party


def test_the_live_refetch_of_a_players_fight_strip_gets_the_strip_alone(player_client, world):
    """R33: when the campaign moves, static/live.js redraws a player's fight strip from the page
    it is on (their home, their sheet): the answer is the strip alone, as the page shows it,
    with the fight running (their turn and what they have left)."""
    from play import services

    services.fight_start(
        campaign_id=world.campaign.pk, actor=world.gm, character_ids=[world.pc.pk, world.npc.pk]
    )
    for url in (
        reverse("campaign", args=[world.campaign.pk]),
        reverse("character", args=[world.campaign.pk, world.pc.pk]),
    ):
        page = player_client.get(url).content.decode()
        strip = player_client.get(
            url, headers={"HX-Request": "true", "HX-Target": "fight-strip"}
        ).content.decode()
        found = re.search(r'<section class="fight-strip.*?</section>', page, re.S)
        # The same strip but for the CSRF token, masked anew on each render.
        unmasked = [
            re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
            for html in (strip.strip(), found.group(0) if found else "")
        ]
        assert found and unmasked[0] == unmasked[1]
        assert world.pc.name in strip and 'data-testid="fight-round"' in strip
        assert "<html" not in strip and 'id="feed"' not in strip and "<h1>" not in strip


def test_the_live_refetch_of_an_owners_proposals_gets_the_list_alone(player_client, world):
    """static/live.js redraws the owner's proposals (#proposals-<id>) from their sheet when
    their character changes: the answer is that list alone, as the sheet shows it."""
    from play.proposals import proposal_make

    proposal_make(
        character_id=world.pc.pk,
        actor=world.player,
        action="damage",
        arguments={"amount": 2},
        note="Une flèche",
    )
    url = reverse("character", args=[world.campaign.pk, world.pc.pk])
    page = player_client.get(url).content.decode()
    part = player_client.get(
        url, headers={"HX-Request": "true", "HX-Target": f"proposals-{world.pc.pk}"}
    ).content.decode()
    assert part.strip().startswith(f'<div id="proposals-{world.pc.pk}"')
    assert "Une flèche" in part and "Une flèche" in page
    assert "<html" not in part and 'id="feed"' not in part
