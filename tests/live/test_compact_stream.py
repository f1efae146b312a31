"""A compact dashboard's stream brings rows, not cards: the page names its view in
the stream's address (`?view=compact`, static/live.js), and every pushed row is what the row's
own URL returns."""

import re

import pytest
from django.test import AsyncClient

from live import stream
from tests.live.helpers import TOKEN, Reader, adamage, as_fetched, open_stream, play

pytestmark = pytest.mark.django_db(transaction=True)
CSRF_FIELD = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]*">')


def fetched_row(client, campaign, character) -> str:
    response = client.get(
        f"/c/{campaign.pk}/characters/{character.pk}/card/?view=compact",
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    return CSRF_FIELD.sub("", response.content.decode()).strip()


def test_a_compact_page_receives_rows_and_a_page_of_cards_cards(world, gm_client):
    cards = frozenset({world.pc.pk})
    pushed = {}

    async def scenario():
        compact = await open_stream(
            world.gm_membership, shown=stream.Shown(cards=cards, view="compact"), token_input=TOKEN
        )
        plain = await open_stream(world.gm_membership, shown=stream.Shown(cards=cards))
        await adamage(world.campaign, world.gm, world.pc, 5)
        _, pushed["compact"] = await compact.events(2)
        _, pushed["cards"] = await plain.events(2)
        await compact.close()
        await plain.close()

    play(scenario)
    row = pushed["compact"]["data"][world.pc.pk]
    assert 'data-testid="row"' in row and 'data-testid="card"' not in row
    assert f'id="character-{world.pc.pk}"' in row and 'hx-swap-oob="true"' in row
    assert TOKEN in row
    assert as_fetched(row) == fetched_row(gm_client, world.campaign, world.pc)
    card = pushed["cards"]["data"][world.pc.pk]
    assert 'data-testid="card"' in card and 'data-testid="row"' not in card


def test_a_players_stream_asking_for_rows_gets_their_card(world):
    pushed = []

    async def scenario():
        reader = await open_stream(
            world.player_membership,
            shown=stream.Shown(cards=frozenset({world.pc.pk}), view="compact"),
        )
        await adamage(world.campaign, world.gm, world.pc)
        pushed.extend(await reader.events(2))
        await reader.close()

    play(scenario)
    card = pushed[1]["data"][world.pc.pk]
    assert 'data-testid="card"' in card and "act/damage/" not in card


def test_the_stream_view_reads_the_view_the_page_shows(world):
    url = f"/c/{world.campaign.pk}/events/?cards={world.pc.pk}&view=compact"

    async def scenario():
        client = AsyncClient()
        await client.aforce_login(world.gm)
        response = await client.get(url)
        reader = await Reader(response._iterator).live()
        await adamage(world.campaign, world.gm, world.pc)
        messages = await reader.events(2)
        await reader.close()
        assert 'data-testid="row"' in messages[1]["data"][world.pc.pk]

    play(scenario)


def test_an_unknown_view_is_read_as_cards(rf):
    request = rf.get("/c/1/events/?view=tableau")
    assert stream._shown(request).view == "cards"
