"""Inviting players at the table, on a laptop (1440 x 900) and a phone (390 x 844):
a new link's QR code is on screen and a scanner reads the link from it; a new campaign leads
its GM to invite players. Screenshots in test-artifacts/."""

import io

import pytest
import zxingcpp
from django.urls import reverse
from PIL import Image
from playwright.sync_api import expect

from campaign.models import Campaign, Invitation
from tests.e2e.pages import GM_VIEWPORT, PHONE, log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"1440": GM_VIEWPORT, "390": PHONE}


@pytest.fixture(params=list(VIEWPORTS))
def gm_page(request, browser, live_server, console_errors, gm):
    phone = request.param == "390"
    context = browser.new_context(
        viewport=VIEWPORTS[request.param],
        device_scale_factor=2 if phone else 1,
        is_mobile=phone,
        has_touch=phone,
        locale="fr-FR",
    )
    page = console_errors(context.new_page())
    page.viewport_name = request.param
    log_in(page, live_server.url, gm.username)
    yield page
    context.close()


def _qr_shown_and_read(page, invitation) -> str:
    """The invitation's QR code as a person sees it: loaded, wholly on screen, then scanned."""
    qr = page.locator(f"#invitation-{invitation.pk} img.qr")
    expect(qr).to_be_visible()
    # The page opens on the new invitation (an anchor): no scrolling to find the code.
    expect(qr).to_be_in_viewport(ratio=1)
    qr.evaluate("img => img.decode()")  # an image the browser cannot draw rejects
    assert qr.evaluate("img => img.naturalWidth") > 0
    screenshot = Image.open(io.BytesIO(qr.screenshot()))
    texts = [barcode.text for barcode in zxingcpp.read_barcodes(screenshot)]
    assert len(texts) == 1, texts
    return texts[0]


def test_the_gm_creates_an_invitation_whose_qr_code_reads_as_its_link(
    gm_page, live_server, campaign, artifacts, console_errors
):
    page = gm_page
    page.goto(f"{live_server.url}{reverse('campaign', args=[campaign.pk])}")
    page.get_by_role("navigation", name="Campagne").get_by_role("link", name="Membres").click()
    page.get_by_role("button", name="Créer le lien").click()

    invitation = Invitation.objects.get(campaign=campaign)
    expected = f"{live_server.url}{reverse('join', args=[invitation.token])}"
    link = page.locator(f"#invitation-{invitation.pk}").get_by_role(
        "textbox", name="Lien d’invitation"
    )
    expect(link).to_have_value(expected)
    assert _qr_shown_and_read(page, invitation) == expected
    page.screenshot(path=artifacts / f"invitation-qr-{page.viewport_name}.png")
    assert console_errors.errors == []


def test_a_new_campaign_leads_its_gm_to_invite_players(
    gm_page, live_server, gm, artifacts, console_errors
):
    page = gm_page
    page.get_by_role("textbox", name="Nom").fill("Les Ruines d’Ostel")
    page.get_by_role("button", name="Créer", exact=True).click()

    campaign = Campaign.objects.get(name="Les Ruines d’Ostel")
    expect(page).to_have_url(f"{live_server.url}{reverse('members', args=[campaign.pk])}")
    next_step = page.get_by_test_id("next-step")
    expect(next_step).to_be_in_viewport()
    page.screenshot(path=artifacts / f"new-campaign-next-step-{page.viewport_name}.png")

    page.get_by_role("button", name="Créer le lien").click()
    invitation = Invitation.objects.get(campaign=campaign)
    assert _qr_shown_and_read(page, invitation) == (
        f"{live_server.url}{reverse('join', args=[invitation.token])}"
    )
    expect(next_step).to_have_count(0)
    assert console_errors.errors == []
