"""R34 at the table: the GM asks for a roll on the dashboard, the player answers on a phone.

The GM (1440 x 900) deals damage that takes Isaure to 0 PV in a campaign where players roll
their rules rolls: the Survie test (R10) is asked of her player. The player's sheet (390 x
844, another browser context) shows the prompt by itself; the player types a die the D20
cannot show (refused in place, in French, a 400), then their real die; the GM's card shows
the answer and the borrowed time (or the coma) that follows, and the log names the roller,
the requester and the rule. Then a test asked from the card and rolled on the server, one
cancelled, one the GM rolls instead, and a second fall into the coma: several actions in a
row, neither page reloaded. Under DEBUG on and off; screenshots in test-artifacts/.

Live updates: under the test server (WSGI) pages poll; its one SQLite connection is shared by
its threads, so each page's polls go through only while the other page does not write
(test_fight.py's gate, here one per page).
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from campaign.models import Campaign
from characters.models import Character
from journal.models import AuditEntry
from play.models import RollRequest
from tests.e2e.pages import (
    GM_VIEWPORT,
    HTMX_ERRORS,
    NO_RELOAD,
    PHONE,
    Gate,
    confirm,
    log_in,
    minus,
    open_context,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def table(browser, live_server, console_errors, campaign, pc, other_pc, debug):
    Campaign.objects.filter(pk=campaign.pk).update(players_roll_rules=True)
    poll = reverse("campaign_events_poll", args=[campaign.pk])
    gm_context, gm = open_context(browser, live_server, console_errors, GM_VIEWPORT, "gaelle_mj")
    gm_gate = Gate()
    gm_context.route(f"{live_server.url}{poll}**", gm_gate.route)
    phone_context, phone = open_context(
        browser,
        live_server,
        console_errors,
        PHONE,
        "paul_joueur",
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    phone_gate = Gate()
    phone_context.route(f"{live_server.url}{poll}**", phone_gate.route)
    gm.goto(f"{live_server.url}/c/{campaign.pk}/")
    phone.goto(f"{live_server.url}/c/{campaign.pk}/characters/{pc.pk}/")
    for page in (gm, phone):
        page.evaluate(f"{NO_RELOAD} = 'still here'")
    yield Table(gm, phone, gm_gate, phone_gate, console_errors, campaign, pc, live_server)
    gm_context.close()
    phone_context.close()


class Table:
    def __init__(self, gm, phone, gm_gate, phone_gate, console, campaign, pc, live_server):
        self.gm, self.phone = gm, phone
        self.gates = {gm: gm_gate, phone: phone_gate}
        self.console, self.campaign, self.pc = console, campaign, pc
        self.base = live_server.url
        self.allowed: list[str] = []
        self.step = 0

    @property
    def gm_card(self):
        return self.gm.locator(f"#character-{self.pc.pk}")

    @property
    def phone_card(self):
        return self.phone.locator(f"#character-{self.pc.pk}")

    def follow(self, page, *expectations):
        """Let `page` poll until each (locator, text) shows, then close its gate once nothing
        of its own is in flight."""
        self.gates[page].open.set()
        for locator, text in expectations:
            expect(locator).to_contain_text(text, timeout=15000)
        page.wait_for_function("() => !document.querySelector('.htmx-request')")
        self.gates[page].open.clear()

    def check(self, name, *, synced=("gm", "phone")):
        """What every step leaves true; `synced`: the pages that have caught up with it."""
        self.step += 1
        where = f"step {self.step} ({name})"
        for page in (self.gm, self.phone):
            assert page.evaluate(NO_RELOAD) == "still here", where
            expect(page.locator("header.topbar")).to_be_visible()
            assert page.evaluate("window.__htmx_errors") == [], where
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        unexpected = [
            line
            for line in self.console.errors
            if not any(
                url in line and ("status of 4" in line or line[:1] == "4") for url in self.allowed
            )
        ]
        assert unexpected == [], where
        row = Character.objects.get(pk=self.pc.pk)
        cards = {"gm": self.gm_card, "phone": self.phone_card}
        for side in synced:
            expect(cards[side].locator("[data-testid=pv]")).to_have_text(
                f"{minus(row.pv)} / {row.pv_max}"
            )

    def said_once_on_the_phone(self, text):
        """The player's own roll, said under her card and nowhere else on her screen: not in
        the card's closed request, not in a toast (her feed lists it, further down)."""
        phone = self.phone
        expect(phone.locator(f"#result-{self.pc.pk}")).to_contain_text(text)
        expect(self.phone_card.get_by_test_id("request-result")).to_have_count(0)
        expect(phone.locator("#toast [data-toast-text]")).not_to_contain_text(text)
        places = phone.locator(f"#result-{self.pc.pk}, #character-{self.pc.pk}, #toast")
        texts = [" ".join(places.nth(i).inner_text().split()) for i in range(places.count())]
        assert sum(" ".join(text.split()) in t for t in texts) == 1, texts

    def refusal_expected(self, request):
        self.allowed.append(self.base + reverse("roll_answer", args=[self.campaign.pk, request.pk]))

    def ask_test(self, stat, skill, difficulty, odds):
        """Ask a test from the card's panel; `odds` as the panel and the card must show them."""
        card = self.gm_card
        card.get_by_role("link", name="Demander un jet au joueur…").click()
        panel = self.gm.locator(f"#panel-{self.pc.pk}")
        expect(panel.locator("form")).to_be_visible()
        panel.get_by_label("Caractéristique").select_option(stat)
        panel.get_by_label("Compétence ou nom du test").fill(skill)
        panel.get_by_label("Difficulté").fill(str(difficulty))
        expect(panel.get_by_test_id("probability")).to_have_text(odds)
        panel.get_by_role("button", name="Appliquer").click()
        expect(card.get_by_test_id("roll-request")).to_contain_text(skill)
        expect(card.get_by_test_id("request-odds")).to_have_text(odds)


def test_r34_r10_the_gm_asks_the_phone_answers_and_the_card_follows(
    table, campaign, gm, player, pc, artifacts, debug
):
    mode = "debug" if debug else "production"
    gm, phone = table.gm, table.phone
    table.check("both pages open")

    # The GM's damage: 13 − 2 PA = 11, Isaure at 0 PV; her Survie (R10) goes to her player.
    card = table.gm_card
    card.locator("input[name=amount]").fill("13")
    card.get_by_role("button", name="Dégâts", exact=True).click()
    prompt = card.get_by_test_id("roll-request")
    expect(prompt).to_contain_text("Jet demandé à paul_joueur")
    expect(prompt).to_contain_text("Survie (VAI) à 0 PV (R10)")
    expect(card.get_by_test_id("request-odds")).to_have_text("60 %")  # d20 + 1 ≥ 10: 9..20
    request = RollRequest.objects.get(character=pc, status="pending")
    assert request.rule_id == "R10"
    table.check("Survie asked of the player", synced=("gm",))
    gm.screenshot(path=artifacts / f"requests-{mode}-gm-asked.png")

    # The phone shows it by itself: the prompt, its odds, the die to type.
    mine = table.phone_card.get_by_test_id("roll-request")
    table.follow(phone, (mine, "gaelle_mj vous demande un jet"))
    expect(mine).to_contain_text("Survie (VAI) à 0 PV")
    expect(mine).not_to_contain_text("(R10)")  # the GM's reference, not the player's
    expect(table.phone_card.get_by_test_id("request-odds")).to_have_text("60 %")
    expect(table.phone_card).to_have_attribute("aria-live", "polite")
    box = mine.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"] + 1
    table.check("the phone shows the request")
    phone.screenshot(path=artifacts / f"requests-{mode}-phone-prompt.png")

    # A die the D20 cannot show: refused where it was typed, nothing applied.
    table.refusal_expected(request)
    die = table.phone_card.get_by_test_id("request-die")
    die.fill("25")
    table.phone_card.get_by_test_id("request-typed").click()
    expect(table.phone_card.get_by_test_id("request-error")).to_have_text(
        "«\u00a025\u00a0» n’est pas un résultat de D20\u00a0: tapez un nombre entier de 1 à 20."
    )
    assert RollRequest.objects.get(pk=request.pk).status == "pending"
    table.check("a refused die")
    phone.screenshot(path=artifacts / f"requests-{mode}-phone-refused.png")

    # The real die: 14 + 1 ≥ 10, borrowed time. Said once, under her card: not again in the
    # card's request box, nor in a toast once her feed has it.
    die.fill("14")
    table.phone_card.get_by_test_id("request-typed").click()
    said = "Survie (VAI)\u00a0: 14 (d20) + 1 (VAI) = 15 ≥ 10"
    expect(phone.locator(f"#result-{pc.pk}")).to_contain_text(said)
    expect(table.phone_card.get_by_test_id("vital")).to_contain_text("sursis")
    table.follow(phone, (phone.locator("#feed"), "lancé par paul_joueur (dé saisi)"))
    table.said_once_on_the_phone(said)
    table.check("the player's die", synced=("phone",))
    phone.screenshot(path=artifacts / f"requests-{mode}-phone-answered.png")

    # The GM's card follows: the answer, who rolled it, the borrowed time.
    table.follow(gm, (card.get_by_test_id("request-result"), "lancé par paul_joueur"))
    expect(card.get_by_test_id("request-result")).to_contain_text("désormais en sursis")
    expect(card.get_by_test_id("vital")).to_contain_text("sursis")
    log = gm.locator("#roll-log")
    expect(log).to_contain_text("jet demandé par gaelle_mj, lancé par paul_joueur (dé saisi)")
    roll = AuditEntry.objects.get(campaign=campaign, kind="roll", rule_id="R10")
    assert (roll.actor, roll.typed_in, roll.roll["dice"]) == (player, True, [14])
    note = AuditEntry.objects.filter(field="request", rule_id="R34").order_by("pk").last()
    assert note.batch == roll.batch and "(R10)" in note.text_fr
    table.check("the GM sees the answer")
    gm.screenshot(path=artifacts / f"requests-{mode}-gm-answered.png")

    # A test asked from the card, rolled by the server from the phone. Isaure is Exténué on
    # borrowed time (R10): an odd die counts 0 (R6). ADR 1: 12, 14, … 20 pass, 25 %.
    table.ask_test("ADR", "Crochetage", 12, "25 %")
    table.check("a test asked", synced=("gm",))
    table.follow(phone, (table.phone_card.get_by_test_id("roll-request"), "Crochetage"))
    table.phone_card.get_by_test_id("request-server").click()
    expect(phone.locator(f"#result-{pc.pk}")).to_contain_text("Crochetage (ADR)")
    table.follow(phone, (phone.locator("#feed"), "lancé par paul_joueur (jet du serveur)"))
    table.said_once_on_the_phone("Crochetage (ADR)")
    table.check("the server rolled the player's test")
    table.follow(gm, (card.get_by_test_id("request-result"), "Crochetage"))
    server = AuditEntry.objects.filter(kind="roll", rule_id="R5").get()
    assert (server.actor, server.typed_in) == (player, False)

    # One asked, then cancelled: the phone's prompt goes away.
    table.ask_test("INS", "Perception", 10, "35 %")  # INS 3: 8, 10, … 20
    table.follow(phone, (table.phone_card.get_by_test_id("roll-request"), "Perception"))
    card.get_by_test_id("request-cancel").click()
    expect(card.get_by_test_id("request-result")).to_contain_text("annulé par gaelle_mj")
    table.follow(phone, (table.phone_card.get_by_test_id("request-result"), "annulé"))
    expect(table.phone_card.get_by_test_id("request-die")).to_have_count(0)
    table.check("a request cancelled")

    # One asked, then rolled by the GM instead.
    table.ask_test("PUI", "Escalade", 8, "40 %")  # PUI 2: 6, 8, … 20
    card.get_by_test_id("request-server").click()
    expect(card.get_by_test_id("request-result")).to_contain_text(
        "Escalade (PUI) · difficulté 8 (R5)\u00a0: lancé par gaelle_mj"
    )
    table.follow(phone, (table.phone_card.get_by_test_id("request-result"), "Escalade"))
    table.check("the GM rolled it instead")

    # Borrowed time runs out with the clock (R10: no roll), the coma; an hour later −1 PV
    # (R11, −PV 1 is not above VAI 1: no test); the next hour, at −2 PV, a Survie test: the
    # clock stops there and asks the player (R34).
    party = gm.locator("#party-bar")
    party.get_by_role("button", name="+1 h").click()
    expect(card.get_by_test_id("vital")).to_contain_text("dans le coma")
    table.check("the coma", synced=("gm",))
    party.get_by_role("button", name="+1 h").click()
    expect(card.locator("[data-testid=pv]")).to_have_text("−1 / 14")
    table.check("an hour of coma", synced=("gm",))
    party.get_by_role("button", name="+1 h").click()
    # A Survie test may fall in this hour: the quick button says the risk and asks first.
    expect(gm.locator("[data-testid=confirm-dialog]")).to_contain_text("risque de mort")
    confirm(gm)
    expect(card.get_by_test_id("roll-request")).to_contain_text("Survie (VAI) de l’heure")
    stopped = RollRequest.objects.get(character=pc, status="pending")
    assert (stopped.rule_id, stopped.kind) == ("R11", "coma_hour")
    # The clock waits for it: refused, said where the GM looks.
    table.allowed.append(table.base + reverse("party_action", args=[campaign.pk, "clock"]))
    party.get_by_role("button", name="+10 min").click()
    expect(gm.locator("#panel-party")).to_contain_text("L’horloge attend le jet d’Isaure")
    table.check("the clock waits", synced=("gm",))
    gm.screenshot(path=artifacts / f"requests-{mode}-gm-clock-waits.png")
    table.follow(phone, (table.phone_card.get_by_test_id("roll-request"), "heure de coma"))
    table.phone_card.get_by_test_id("request-die").fill("2")
    table.phone_card.get_by_test_id("request-typed").click()
    expect(table.phone_card.get_by_test_id("vital")).to_contain_text("mort·e")
    # Her test form goes with her consciousness, without a reload (static/live.js).
    expect(phone.get_by_test_id("roll-form")).to_have_count(0)
    expect(phone.locator(f"#roll-part-{pc.pk}")).to_contain_text(
        "Isaure ne peut pas faire de test dans cet état."
    )
    table.follow(gm, (card.get_by_test_id("vital"), "mort·e"))
    expect(card.get_by_test_id("request-result")).to_contain_text("lancé par paul_joueur")
    table.check("the hour's test failed")
    phone.screenshot(path=artifacts / f"requests-{mode}-phone-dead.png", full_page=True)
    gm.screenshot(path=artifacts / f"requests-{mode}-gm-dead.png")


def test_r34_r10_the_real_stream_brings_the_prompt_and_the_answer(
    browser, two_processes, console_errors, artifacts
):
    """The real stream (uvicorn, PostgreSQL's NOTIFY): the GM, on one process, deals damage
    whose Survie (R10) the player is to roll, chosen in the damage form; the phone, on the
    other, gets the prompt pushed; its answer reaches the GM's card the same way."""
    import psycopg

    world = two_processes
    gm_url, player_url = world.urls
    cid, mine = world.campaign_id, world.character_id
    with psycopg.connect(world.db.replace("postgres://", "postgresql://", 1)) as conn:
        pv, pa = conn.execute(
            "SELECT pv, pa FROM characters_character WHERE id = %s", [mine]
        ).fetchone()
    phone_context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="fr-FR"
    )
    phone_context.add_init_script(HTMX_ERRORS)
    phone = console_errors(phone_context.new_page())
    log_in(phone, player_url, "alice", "demo")
    phone.goto(f"{player_url}/c/{cid}/characters/{mine}/")
    phone.evaluate(f"{NO_RELOAD} = 'still here'")
    expect(phone.locator("#live")).to_have_attribute("data-connected", "stream")
    gm_context = browser.new_context(viewport=GM_VIEWPORT, locale="fr-FR")
    gm_context.add_init_script(HTMX_ERRORS)
    gm = console_errors(gm_context.new_page())
    log_in(gm, gm_url, "mj", "demo")
    gm.goto(f"{gm_url}/c/{cid}/")
    expect(gm.locator("#live")).to_have_attribute("data-connected", "stream")
    card = gm.locator(f"#character-{mine}")
    card.get_by_role("link", name="Dégâts…").click()
    panel = gm.locator(f"#panel-{mine}")
    panel.get_by_label("Dégâts").fill(str(pv + pa))
    panel.get_by_label("Survie à 0 PV (R10) lancée par").select_option("players")
    panel.get_by_role("button", name="Appliquer").click()
    expect(card.get_by_test_id("roll-request")).to_contain_text("Jet demandé à alice")

    mine_card = phone.locator(f"#character-{mine}")
    prompt = mine_card.get_by_test_id("roll-request")
    expect(prompt).to_contain_text("mj vous demande un jet")
    expect(prompt).to_contain_text("Survie (VAI) à 0 PV")
    mine_card.get_by_test_id("request-die").fill("0")
    mine_card.get_by_test_id("request-typed").click()
    expect(mine_card.get_by_test_id("request-error")).to_contain_text("n’est pas un résultat")
    mine_card.get_by_test_id("request-die").fill("15")
    mine_card.get_by_test_id("request-typed").click()
    expect(mine_card.get_by_test_id("vital")).to_contain_text("sursis")
    expect(card.get_by_test_id("request-result")).to_contain_text("lancé par alice — Survie")
    expect(card.get_by_test_id("request-result")).to_contain_text("[dé saisi]")
    expect(card.get_by_test_id("vital")).to_contain_text("sursis")
    phone.screenshot(path=artifacts / "requests-live-phone.png", full_page=True)
    gm.screenshot(path=artifacts / "requests-live-gm.png")
    assert phone.evaluate(NO_RELOAD) == "still here"
    for page in (gm, phone):
        assert page.evaluate("window.__htmx_errors") == []
    # The die 0, refused on purpose: its 400 (the response, and the console's line for it).
    refused = [line for line in console_errors.errors if "/answer/" in line]
    assert refused and all("400" in line for line in refused)
    assert [line for line in console_errors.errors if line not in refused] == []
    gm_context.close()
    phone_context.close()


@pytest.fixture
def stabilised(pc, other_pc):
    """Before the pages open: Isaure stabilised at 08:00 (her first waking try at 09:00,
    R13), Gaspard awake and worn (10 / 18 PV, 2 / 6 Flux), to sleep."""
    Character.objects.filter(pk=pc.pk).update(
        vital="stabilised", pv=-1, stabilised_at=pc.campaign.clock, down_cause="chute"
    )
    Character.objects.filter(pk=other_pc.pk).update(pv=10, flux=2)


def test_r34_r17_the_night_waits_for_the_players_roll_in_its_hours(
    stabilised, table, campaign, pc, other_pc, artifacts, debug
):
    """The GM's night (R17) reaches Isaure's waking try at 09:00: the clock stops there, the
    night gives nothing yet, the GM can neither move the clock nor cancel the roll; the
    player's die wakes her; the night then ends by itself and Gaspard's card shows what it
    gave. Then a second night, whole. Neither page reloaded."""
    mode = "debug" if debug else "production"
    gm, card = table.gm, table.gm_card
    sleeper = gm.locator(f"#character-{other_pc.pk}")
    table.check("both pages open")

    gm.locator("#party-bar").get_by_role("link", name="Nuit de repos").click()
    panel = gm.locator("#panel-party")
    expect(panel.get_by_label("Durée de la nuit (heures)")).to_be_visible()
    who = panel.get_by_label("Jets des personnages joueurs pendant la nuit", exact=False)
    expect(who).to_have_value("players")  # the campaign's setting (R34)
    panel.get_by_role("button", name="Appliquer").click()
    expect(gm.locator("#result-party")).to_contain_text("nuit suspendue")
    expect(card.get_by_test_id("roll-request")).to_contain_text("essai de réveil")
    expect(card.get_by_test_id("request-cancel")).to_have_count(0)  # due by the rules
    expect(sleeper.locator("[data-testid=pv]")).to_have_text("10 / 18")
    table.check("the night stopped", synced=("gm",))
    gm.screenshot(path=artifacts / f"requests-{mode}-night-waits.png")

    # The clock waits: the GM's +1 h is refused where they look.
    table.allowed.append(table.base + reverse("party_action", args=[campaign.pk, "clock"]))
    gm.locator("#party-bar").get_by_role("button", name="+1 h").click()
    expect(gm.locator("#panel-party")).to_contain_text("L’horloge attend le jet d’Isaure")
    table.check("the clock waits", synced=("gm",))

    # The player's die: 18 + 1 ≥ 10, awake at 1 PV (R13); the night goes on to its end.
    mine = table.phone_card.get_by_test_id("roll-request")
    table.follow(table.phone, (mine, "essai de réveil"))
    expect(table.phone.get_by_test_id("roll-form")).to_have_count(0)  # unconscious
    table.phone_card.get_by_test_id("request-die").fill("18")
    table.phone_card.get_by_test_id("request-typed").click()
    expect(table.phone_card.locator("[data-testid=pv]")).to_have_text("1 / 14")
    # Awake: her test form comes back, without a reload (static/live.js).
    expect(table.phone.get_by_test_id("roll-form")).to_be_visible()
    table.check("the player woke up", synced=("phone",))
    table.follow(gm, (sleeper.locator("[data-testid=pv]"), "14 / 18"))
    expect(card.locator("[data-testid=pv]")).to_have_text("1 / 14")
    expect(sleeper.get_by_test_id("flux")).to_contain_text("6 / 6")
    assert Campaign.objects.get(pk=campaign.pk).clock == campaign.clock + timedelta(hours=8)
    table.check("the night ended once answered")
    gm.screenshot(path=artifacts / f"requests-{mode}-night-ended.png")

    # The next night asks nothing of anyone awake: it ends at once. (The panel still holds
    # the refused clock form until the night's form replaces it.)
    gm.locator("#party-bar").get_by_role("link", name="Nuit de repos").click()
    expect(gm.locator("#panel-party").get_by_label("Durée de la nuit (heures)")).to_be_visible()
    gm.locator("#panel-party").get_by_role("button", name="Appliquer").click()
    expect(gm.locator("#result-party")).to_contain_text("la nuit rend")
    expect(card.locator("[data-testid=pv]")).to_have_text("5 / 14")
    table.check("a whole night", synced=("gm",))


def test_r34_the_players_home_says_live_that_a_roll_is_asked(table, campaign, pc, debug):
    """The player waits on the campaign's home page, not the sheet: the GM's request shows
    there by itself, and goes once the GM rolls it instead. Neither page reloaded."""
    phone = table.phone
    phone.goto(f"{table.base}/c/{campaign.pk}/")
    phone.evaluate(f"{NO_RELOAD} = 'still here'")
    waiting = phone.locator(f"#own-{pc.pk}").get_by_test_id("request-waiting")
    expect(waiting).to_have_count(0)
    table.ask_test("ADR", "Crochetage", 12, "50 %")  # ADR 1: 11, 12, … 20
    table.follow(phone, (waiting, "Un jet vous est demandé\u00a0: ouvrez la fiche"))
    table.gm_card.get_by_test_id("request-server").click()
    expect(table.gm_card.get_by_test_id("request-result")).to_contain_text("lancé par gaelle_mj")
    table.gates[phone].open.set()
    expect(waiting).to_have_count(0, timeout=15000)
    phone.wait_for_function("() => !document.querySelector('.htmx-request')")
    table.gates[phone].open.clear()
    assert phone.evaluate(NO_RELOAD) == "still here"
    assert phone.evaluate("window.__htmx_errors") == []
    assert table.console.errors == []
