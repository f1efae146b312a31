"""Actions that change much at once ask once (static/confirm.js reads data-confirm): an undo of
20 changes or more, removing a member, ending a fight. Small actions never ask."""

from django.urls import reverse

from characters.models import Character, Kind
from journal.texts import CONFIRM_UNDO_FROM, undo_question
from play import services


def test_undo_question_only_from_twenty_changes():
    assert CONFIRM_UNDO_FROM == 20
    assert undo_question(19) is None
    assert undo_question(20) == "Défaire toute l’action : 20 modifications d’un coup ?"


def test_r17_a_big_action_asks_before_its_undo_a_small_one_does_not(gm_client, world):
    services.character_damage(character_id=world.pc.pk, actor=world.gm, amount=5)
    history = reverse("history", args=[world.campaign.pk])
    assert "data-confirm=" not in gm_client.get(history).content.decode()
    for n in range(10):
        Character.objects.create(
            campaign=world.campaign,
            name=f"Garde {n}",
            kind=Kind.NPC,
            pv=2,
            pv_max=10,
            flux=1,
            flux_max=6,
        )
    services.party_night_rest(campaign_id=world.campaign.pk, actor=world.gm, hours=8)
    html = gm_client.get(history).content.decode()
    assert 'data-confirm="Défaire toute l’action : ' in html
    # Every « undo the whole action » of the night asks; each change's own undo does not.
    whole = html.count("Défaire toute l’action (")
    assert whole >= 20
    assert html.count("data-confirm=") == whole


def test_removing_a_member_and_ending_a_fight_ask_first(gm_client, world):
    members = gm_client.get(reverse("members", args=[world.campaign.pk])).content.decode()
    assert 'data-confirm="Retirer paul_joueur de la campagne ?"' in members
    services.fight_start(
        campaign_id=world.campaign.pk, actor=world.gm, character_ids=[world.pc.pk, world.npc.pk]
    )
    dashboard = gm_client.get(reverse("campaign", args=[world.campaign.pk])).content.decode()
    assert 'data-confirm="Terminer le combat pour tout le monde ?"' in dashboard
    # The small actions of the fight (next turn) never ask.
    assert dashboard.count("data-confirm=") == 1
