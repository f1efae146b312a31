"""Players propose, the GM approves (play/proposals.py, play/proposal_views.py).

A proposal changes nothing before approval (the character's row and the game's entries stay
as they were); approved, it goes through the GM's own action and service, each entry naming
who proposed it and its actor the GM who approved; edited, the GM's arguments apply; refused,
the player reads the GM's word. Who may use each URL is tests/test_permissions.py's table.
"""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from campaign.models import PartyVisibility
from characters.models import Character
from journal import events as live
from journal.models import AuditEntry
from journal.visibility import entry_facts, sees_entry, visible_entries
from live import stream
from play import services
from play.models import Proposal, ProposalStatus
from play.proposals import proposal_approve, proposal_make, proposal_refuse
from tests.helpers import db_state

DAMAGE = {"action": "damage", "amount": "5", "cause": "piège à flèches", "note": "Je l’ai lu."}


def propose_url(w, character=None):
    return reverse("proposal_create", args=[w.campaign.pk, (character or w.pc).pk])


def url(name, w, proposal):
    return reverse(name, args=[w.campaign.pk, proposal.pk])


def character_row(character):
    return Character.objects.filter(pk=character.pk).values().get()


def game_entries(campaign):
    return list(AuditEntry.objects.filter(campaign=campaign).exclude(field="proposal"))


def proposal_entries(campaign):
    return list(AuditEntry.objects.filter(campaign=campaign, field="proposal").order_by("id"))


def test_r3_a_proposal_changes_nothing_before_approval(player_client, world):
    row = character_row(world.pc)

    response = player_client.post(propose_url(world), DAMAGE)

    assert response.status_code == 302
    assert character_row(world.pc) == row  # PV, version, everything
    assert game_entries(world.campaign) == []
    proposal = Proposal.objects.get()
    assert (proposal.status, proposal.action, proposal.proposed_by) == (
        "pending",
        "damage",
        world.player,
    )
    assert proposal.arguments == {"amount": 5, "ignores_pa": False, "cause": "piège à flèches"}
    [entry] = proposal_entries(world.campaign)
    assert (entry.action, entry.rule_id, entry.actor_id) == ("proposal", "R3", world.player.pk)
    assert entry.text_fr == (
        f"Proposition #{proposal.pk} de paul_joueur : Dégâts : 5 (piège à flèches)"
        " — « Je l’ai lu. »"
    )


def test_r3_approved_it_goes_through_the_gms_damage_service(player_client, gm_client, world):
    player_client.post(propose_url(world), DAMAGE)
    proposal = Proposal.objects.get()

    dashboard = "http://testserver" + reverse("campaign", args=[world.campaign.pk])
    response = gm_client.post(
        url("proposal_approve", world, proposal),
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=dashboard,
    )

    assert response.status_code == 200
    world.pc.refresh_from_db()
    assert world.pc.pv == 11 - (5 - 2)  # R3: minus the PA
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decided_by) == ("approved", world.gm)
    [damage] = game_entries(world.campaign)
    assert (damage.field, damage.rule_id, damage.before, damage.after) == ("pv", "R3", 11, 8)
    assert damage.actor_id == world.gm.pk  # the GM approved
    assert damage.text_fr.endswith("· proposé par paul_joueur")  # the player proposed
    assert damage.text_en.endswith("· proposed by paul_joueur")
    _made, approved = proposal_entries(world.campaign)
    assert approved.action == "proposal_approved" and approved.actor_id == world.gm.pk
    assert approved.after["entries"] == [damage.pk]
    # Approved as proposed is not an edit, whatever the GM's form adds (who rolls R10).
    assert proposal.applied_arguments is None
    assert approved.text_fr.startswith(f"Proposition #{proposal.pk} de paul_joueur approuvée : ")
    assert "modifiée" not in approved.text_fr and "au lieu de" not in approved.text_fr
    # The answer is the GM's action's: the explanation, the card out of band, the list.
    page = response.content.decode()
    assert 'data-testid="explanation"' in page and 'id="character-' in page
    assert 'id="proposals"' in page and "hidden" in page


def test_r1_edited_then_approved_applies_the_gms_numbers(player_client, gm_client, world):
    player_client.post(propose_url(world), {"action": "spend_flux", "amount": "4"})
    proposal = Proposal.objects.get()

    form = gm_client.get(url("proposal_edit", world, proposal), HTTP_HX_REQUEST="true")
    assert form.status_code == 200
    page = form.content.decode()
    assert 'value="4"' in page and url("proposal_approve", world, proposal) in page
    assert "paul_joueur" in page  # whose proposal is being edited

    response = gm_client.post(
        url("proposal_approve", world, proposal),
        {"amount": "2", "visibility": "everyone", "edited": "1"},
        HTTP_HX_REQUEST="true",
    )

    assert response.status_code == 200
    world.pc.refresh_from_db()
    assert world.pc.flux == 7 - 2
    proposal.refresh_from_db()
    assert proposal.status == "approved" and proposal.applied_arguments == {"amount": 2}
    [spent] = game_entries(world.campaign)
    assert (spent.rule_id, spent.before, spent.after) == ("R1", 7, 5)
    approved = proposal_entries(world.campaign)[-1]
    assert approved.text_fr == (
        f"Proposition #{proposal.pk} de paul_joueur modifiée puis approuvée : "
        "Flux dépensé : 2 (au lieu de Flux dépensé : 4)"
    )


def test_an_edit_the_rules_refuse_shows_in_its_panel(player_client, gm_client, world):
    player_client.post(propose_url(world), {"action": "spend_flux", "amount": "4"})
    proposal = Proposal.objects.get()
    before = character_row(world.pc)

    response = gm_client.post(
        url("proposal_approve", world, proposal),
        {"amount": "", "visibility": "everyone", "edited": "1"},
        HTTP_HX_REQUEST="true",
    )

    assert response.status_code == 400
    assert response["HX-Retarget"] == f"#panel-{world.pc.pk}"
    assert character_row(world.pc) == before
    assert Proposal.objects.get().status == "pending"


def test_r20_refused_with_a_word_the_player_reads(player_client, gm_client, world):
    player_client.post(propose_url(world), {"action": "add_condition", "kind": "ebranle"})
    proposal = Proposal.objects.get()
    row = character_row(world.pc)

    response = gm_client.post(
        url("proposal_refuse", world, proposal),
        {"reply": "Le piège était désamorcé."},
        HTTP_HX_REQUEST="true",
    )

    assert response.status_code == 200
    assert 'id="proposals"' in response.content.decode()
    assert character_row(world.pc) == row
    assert game_entries(world.campaign) == []
    proposal.refresh_from_db()
    assert (proposal.status, proposal.reply) == ("refused", "Le piège était désamorcé.")
    _made, refused = proposal_entries(world.campaign)
    assert (refused.action, refused.rule_id, refused.actor_id) == (
        "proposal_refused",
        "R20",
        world.gm.pk,
    )
    sheet = player_client.get(reverse("character", args=[world.campaign.pk, world.pc.pk]))
    assert "Le piège était désamorcé." in sheet.content.decode()


def test_r1_a_proposal_the_state_no_longer_allows_is_refused_in_place(
    player_client, gm_client, world
):
    player_client.post(propose_url(world), {"action": "spend_flux", "amount": "6"})
    proposal = Proposal.objects.get()
    # Meanwhile the GM spends Flux: only 2 are left.
    services.flux_spend(character_id=world.pc.pk, actor=world.gm, amount=5)
    before = db_state()

    response = gm_client.post(url("proposal_approve", world, proposal), HTTP_HX_REQUEST="true")

    assert response.status_code == 400
    assert response["HX-Retarget"] == "#proposals"
    page = response.content.decode()
    assert 'data-testid="proposal-error"' in page and "2 Flux" in page
    assert db_state() == before  # still waiting, nothing written


def test_a_proposal_decided_twice_is_refused_the_second_time(player_client, gm_client, world):
    player_client.post(propose_url(world), DAMAGE)
    proposal = Proposal.objects.get()
    gm_client.post(url("proposal_refuse", world, proposal), {"reply": "Non."})
    before = db_state()

    response = gm_client.post(url("proposal_approve", world, proposal))

    assert response.status_code == 400
    assert "déjà été refusée" in response.content.decode()
    assert db_state() == before


def test_a_player_cannot_approve_nor_refuse(player_client, world):
    player_client.post(propose_url(world), DAMAGE)
    proposal = Proposal.objects.get()
    before = db_state()

    for name in ("proposal_approve", "proposal_refuse"):
        assert player_client.post(url(name, world, proposal)).status_code == 403
    assert player_client.get(url("proposal_edit", world, proposal)).status_code == 403
    assert db_state() == before


def test_a_player_cannot_propose_for_another_character(player_client, world):
    before = db_state()
    for character in (world.other_pc, world.npc):
        response = player_client.post(propose_url(world, character), DAMAGE)
        assert response.status_code == 403
    assert db_state() == before


def test_the_service_refuses_a_proposal_for_someone_elses_character(world):
    before = db_state()
    with pytest.raises(Exception) as refused:
        proposal_make(
            character_id=world.other_pc.pk,
            actor=world.player,
            action="damage",
            arguments={"amount": 2},
        )
    assert "propre personnage" in refused.value.message_fr
    assert db_state() == before


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"action": "damage", "amount": ""}, "Dites combien"),
        ({"action": "damage", "amount": "0"}, "supérieure ou égale à 1"),
        ({"action": "damage", "amount": "trois"}, "nombre entier"),
        ({"action": "spend_flux", "amount": "1000"}, "inférieure ou égale à 999"),
        ({"action": "add_condition", "kind": ""}, "Choisissez l’état"),
        ({"action": "add_condition", "kind": "endormi"}, "Sélectionnez un choix valide"),
        ({"action": "voler"}, "Sélectionnez un choix valide"),
        # R1, from the rules: more Flux than there is.
        ({"action": "spend_flux", "amount": "8"}, "a que 7 Flux (il en faut 8)"),
        ({"action": "damage", "amount": "2", "note": "x" * 301}, "au plus 300"),
    ],
)
def test_bad_input_is_a_400_with_a_french_message_in_place(player_client, world, data, message):
    before = db_state()
    with translation.override("fr"):
        response = player_client.post(propose_url(world), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="propose-' in page and message in page, page
    assert db_state() == before


def test_bad_input_without_htmx_is_the_sheet_with_the_form_and_a_400(player_client, world):
    response = player_client.post(propose_url(world), {"action": "damage", "amount": ""})
    assert response.status_code == 400
    assert response.templates[0].name == "play/sheet.html"
    assert "Dites combien" in response.content.decode()


def test_a_refusal_word_too_long_is_a_400_in_place(player_client, gm_client, world):
    player_client.post(propose_url(world), DAMAGE)
    proposal = Proposal.objects.get()
    before = db_state()
    response = gm_client.post(
        url("proposal_refuse", world, proposal), {"reply": "n" * 201}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 400
    assert "au plus 200" in response.content.decode()
    assert db_state() == before


def test_the_gm_card_counts_what_waits_and_the_dashboard_lists_it(player_client, gm_client, world):
    player_client.post(propose_url(world), DAMAGE)
    player_client.post(propose_url(world), {"action": "spend_flux", "amount": "1"})

    page = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()

    assert 'data-proposals="2"' in page and "2 propositions" in page
    assert page.count('data-testid="proposal"') == 2
    card = gm_client.get(reverse("character_card", args=[world.campaign.pk, world.pc.pk]))
    assert 'data-proposals="2"' in card.content.decode()
    part = gm_client.get(
        reverse("campaign", args=[world.campaign.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="proposals",
    )
    assert part.content.decode().count('data-testid="proposal"') == 2


def test_proposal_entries_are_seen_by_the_gm_and_the_owner_only(player_client, world):
    world.campaign.party_visibility = PartyVisibility.BARS
    world.campaign.save()
    player_client.post(propose_url(world), DAMAGE)
    entry = AuditEntry.objects.get(field="proposal")
    memberships = world.campaign.memberships.select_related("campaign")
    seen = {
        m.user.username: (
            visible_entries(m).filter(pk=entry.pk).exists(),
            sees_entry(m, entry_facts(AuditEntry.objects.filter(pk=entry.pk))[0]),
        )
        for m in memberships
    }
    assert seen == {
        "gaelle_mj": (True, True),
        "paul_joueur": (True, True),
        "olivia_joueuse": (False, False),
    }


def test_a_proposal_entry_cannot_be_undone(player_client, world):
    player_client.post(propose_url(world), DAMAGE)
    entry = AuditEntry.objects.get(field="proposal")
    with pytest.raises(services.NotUndoable):
        services.entry_undo(campaign_id=world.campaign.pk, actor=world.gm, entry_id=entry.pk)


def test_r10_approved_damage_may_roll_survie_and_names_the_proposer(world):
    proposal = proposal_make(
        character_id=world.pc.pk,
        actor=world.player,
        action="damage",
        arguments={"amount": 20, "ignores_pa": True, "cause": "chute de pierres"},
    )
    approved = proposal_approve(
        campaign_id=world.campaign.pk,
        proposal_id=proposal.pk,
        actor=world.gm,
        amount=20,
        ignores_pa=True,
        cause="chute de pierres",
        dice=[15],
    )
    entries = approved.result.entries
    assert any(e.rule_id == "R10" and e.kind == "roll" for e in entries)
    assert all(e.text_fr.endswith("proposé par paul_joueur") for e in entries)
    assert ProposalStatus(Proposal.objects.get().status) == ProposalStatus.APPROVED


def test_the_history_offers_no_undo_for_a_proposals_entries(player_client, gm_client, world):
    player_client.post(propose_url(world), DAMAGE)
    entry = AuditEntry.objects.get(field="proposal")
    page = gm_client.get(reverse("history", args=[world.campaign.pk])).content.decode()
    assert f'id="entry-{entry.pk}"' in page
    assert reverse("entry_undo", args=[world.campaign.pk, entry.pk]) not in page


def test_the_stream_pushes_the_gms_card_with_its_count_though_the_version_did_not_move(world):
    """A proposal is published as a change of its character: the GM's stream brings the card
    (its count of proposals, in its cache key) and the owner's announces it; another player
    learns nothing of it."""
    version = Character.objects.get(pk=world.pc.pk).version
    proposal = proposal_make(
        character_id=world.pc.pk, actor=world.player, action="spend_flux", arguments={"amount": 1}
    )
    entry = AuditEntry.objects.get(field="proposal")
    event = live.Event(world.campaign.pk, (world.pc.pk,), entry.pk)
    shown = stream.Shown(cards=frozenset({world.pc.pk}))
    change, membership = stream._visible_change(event, world.gm.pk, shown)
    assert change.cards == (world.pc.pk,)
    html = stream._cards_message(membership, change, shown).html[world.pc.pk]
    assert f'data-version="{version}"' in html and 'data-proposals="1"' in html
    assert "1 proposal" in html or "1 proposition" in html
    change, _ = stream._visible_change(event, world.player.pk, shown)
    assert change.characters == (world.pc.pk,)
    change, _ = stream._visible_change(event, world.other_player.pk, shown)
    assert change.characters == ()
    # Refused: the count goes, the card again (same version).
    proposal_refuse(campaign_id=world.campaign.pk, proposal_id=proposal.pk, actor=world.gm)
    change, membership = stream._visible_change(event, world.gm.pk, shown)
    html = stream._cards_message(membership, change, shown).html[world.pc.pk]
    assert 'data-proposals="0"' in html and 'data-testid="proposals-count"' not in html


def test_the_compact_row_counts_what_waits(player_client, gm_client, world):
    player_client.post(propose_url(world), DAMAGE)
    gm_client.post(reverse("dashboard_view", args=[world.campaign.pk]), {"view": "compact"})
    page = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert 'data-testid="row"' in page
    assert re.search(r'data-testid="proposals-count"[^>]*>1 prop\.<', page)


def test_editing_a_proposal_decided_meanwhile_says_so_in_the_list(player_client, gm_client, world):
    player_client.post(propose_url(world), DAMAGE)
    proposal = Proposal.objects.get()
    gm_client.post(url("proposal_refuse", world, proposal), {"reply": ""})
    response = gm_client.get(url("proposal_edit", world, proposal), HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#proposals"
    assert "déjà été refusée" in response.content.decode()


def test_no_more_than_ten_proposals_of_one_character_wait(player_client, world):
    for _ in range(10):
        proposal_make(
            character_id=world.pc.pk, actor=world.player, action="damage", arguments={"amount": 1}
        )
    before = db_state()
    response = player_client.post(propose_url(world), DAMAGE, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "10 propositions pour Isaure attendent déjà le MJ" in response.content.decode()
    assert db_state() == before


def test_r22_a_field_the_chosen_kind_hides_does_not_refuse_the_form(player_client, world):
    data = {"action": "add_condition", "kind": "gene", "amount": "0", "cause": "x" * 201}
    response = player_client.post(propose_url(world), data)
    assert response.status_code == 302
    assert Proposal.objects.get().arguments == {"kind": "gene"}
    assert AuditEntry.objects.get(field="proposal").rule_id == "R22"  # Gêné


HTMX = {"HX-Request": "true"}


def test_a_player_withdraws_a_waiting_proposal_and_the_gm_no_longer_sees_it(
    player_client, gm_client, world
):
    player_client.post(propose_url(world), DAMAGE)
    proposal = Proposal.objects.get()
    row = character_row(world.pc)

    response = player_client.post(url("proposal_withdraw", world, proposal), headers=HTMX)

    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="proposals-{world.pc.pk}"' in html and "Retirée" in html
    assert 'data-testid="proposal-withdraw"' not in html  # nothing left to withdraw
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decided_by) == ("withdrawn", world.player)
    assert character_row(world.pc) == row and game_entries(world.campaign) == []
    entry = proposal_entries(world.campaign)[-1]
    assert (entry.action, entry.actor_id) == ("proposal_withdrawn", world.player.pk)
    assert entry.text_fr == (
        f"Proposition #{proposal.pk} retirée par paul_joueur : Dégâts : 5 (piège à flèches)"
    )
    # The GM's dashboard lists nothing to decide; deciding it now says why, in French.
    dashboard = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert f'data-proposal-character="{world.pc.pk}"' not in dashboard
    refused = gm_client.post(url("proposal_approve", world, proposal))
    assert refused.status_code == 400 and "déjà été retirée" in refused.content.decode()


def test_only_the_proposer_withdraws_and_only_while_it_waits(
    player_client, gm_client, other_player_client, world
):
    player_client.post(propose_url(world), DAMAGE)
    proposal = Proposal.objects.get()
    before = db_state()
    for client in (gm_client, other_player_client):
        assert client.post(url("proposal_withdraw", world, proposal)).status_code == 403
    assert db_state() == before

    gm_client.post(url("proposal_refuse", world, proposal), {"reply": "Non."})
    before = db_state()
    late = player_client.post(url("proposal_withdraw", world, proposal), headers=HTMX)
    assert late.status_code == 400
    assert "déjà été refusée" in late.content.decode() and 'role="alert"' in late.content.decode()
    assert db_state() == before
    # Without htmx: back to the sheet, with the same word.
    plain = player_client.post(url("proposal_withdraw", world, proposal), follow=True)
    assert plain.redirect_chain[-1][0] == reverse(
        "character", args=[world.campaign.pk, world.pc.pk]
    )
    assert "déjà été refusée" in plain.content.decode()
