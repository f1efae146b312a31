"""A quick action leaves the GM's page where it was (1440x900): after each one, without a
reload, the card's name and its bars stay at the same place on screen, whichever card and
however far the page was scrolled; the result still appears and takes the focus."""

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import NO_RELOAD

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PLACE = """(id) => {
  const card = document.getElementById("character-" + id);
  const at = (el) => Math.round(el.getBoundingClientRect().top);
  return {
    scroll: Math.round(window.scrollY),
    name: at(card.querySelector("h2")),
    pv: at(card.querySelector("[data-testid=pv]")),
    flux: at(card.querySelector("[data-testid=flux]")),
  };
}"""


@pytest.mark.parametrize("top", [120, 260])
def test_a_quick_action_does_not_move_the_card_the_gm_looks_at(
    session_page, live_server, console_errors, campaign, pc, other_pc, npc, top
):
    page = session_page
    for character in (other_pc, pc, other_pc):
        card = page.locator(f"#character-{character.pk}")
        # The card's name `top` px below the window's top, as the GM scrolled to it.
        page.evaluate(
            "([id, top]) => window.scrollTo(0, window.scrollY + document.getElementById("
            "'character-' + id).getBoundingClientRect().top - top)",
            [character.pk, top],
        )
        for button in ("Dégâts", "Soigner", "−Flux", "+Flux"):
            before = page.evaluate(PLACE, character.pk)
            card = page.locator(f"#character-{character.pk}")
            card.locator("input[name=amount]").fill("1")
            card.get_by_role("button", name=button, exact=True).click()
            result = page.locator(f"#result-{character.pk} [data-testid=explanation]")
            expect(result).to_be_attached()
            expect(result).to_be_focused()
            page.wait_for_function("() => !document.querySelector('.htmx-added, .htmx-settling')")
            after = page.evaluate(PLACE, character.pk)
            assert after == before, (character.name, button, before, after)
            # The result is on screen at once, stuck below the card's visible part.
            box = result.bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 900, (button, box)
    assert page.evaluate(NO_RELOAD) == "still here"
    assert page.evaluate("window.__htmx_errors") == []
    assert console_errors.errors == []
