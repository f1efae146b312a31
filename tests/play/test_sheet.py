"""Creating and editing a character: through the services, on the log like any action.

Nothing changes off the log: the edit form's every changed field gets an entry with
before and after, PV and Flux set by hand go through the engine so their rules follow (R10's
Survie test, R26's Exténué), a lowered maximum brings the current value down (R1), and open
cards update (the write publishes the character and bumps its version).
The fixtures' Isaure (pc): PV 11/14, Flux 7/10, PA 2, VAI 1; the clock starts at day 1, 08:00.
"""

import pytest
from django.urls import reverse

from characters.models import Character
from journal.models import AuditEntry
from journal.visibility import visible_entries
from play import services
from play.services import runner
from rules import engine
from tests.helpers import character_data, db_state
from tests.play.steps import at, conditions_of, iso, log, put

EXTENUE_FLUX = {"kind": "extenue", "cause": "flux"}
EXTENUE_DEATHS_DOOR = {"kind": "extenue", "cause": "deaths_door"}


@pytest.fixture
def published(monkeypatch):
    events = []
    monkeypatch.setattr(runner, "publish", lambda *args, **_: events.append(args))
    return events


def sheet_data(character, **changes) -> dict:
    """The edit form as the GM finds it, with `changes` typed in."""
    character = Character.objects.get(pk=character.pk)
    data = character_data(
        character.campaign,
        **{
            name: getattr(character, name)
            for name in ("name", "kind", "pv", "pv_max", "flux", "flux_max", "pa")
        },
        actions=character.actions,
        reflexes=character.reflexes,
        owner=character.owner_id or "",
        public_notes=character.public_notes,
        gm_notes=character.gm_notes,
    )
    data.update({f"stat_{code}": str(value) for code, value in character.stats.items()})
    data.update({key: str(value) for key, value in changes.items()})
    return data


def edit(client, world, character, **changes):
    url = reverse("character_edit", args=[world.campaign.pk, character.pk])
    return client.post(url, sheet_data(character, **changes))


def reload(character) -> Character:
    return Character.objects.get(pk=character.pk)


# ---------------------------------------------------------------------------------------------
# The edit form


@pytest.mark.parametrize(
    ("die", "vital", "then"),
    [
        # Survie (VAI): 3 + 1 < 10: coma at once, the first hourly loss an hour later (R11).
        (3, "coma", [("change", "R10", "next_coma_hour", None, iso(at(1)))]),
        # 15 + 1 ≥ 10: ten minutes of borrowed time, Exténué meanwhile.
        (
            15,
            "borrowed_time",
            [
                ("change", "R10", "coma_due", None, iso(at(minutes=10))),
                ("change", "R10", "conditions", [], [EXTENUE_DEATHS_DOOR]),
            ],
        ),
    ],
)
def test_r10_pv_set_below_zero_by_hand_makes_the_survie_test(gm_client, world, die, vital, then):
    pc = put(world.pc, pv=10)
    response = edit(gm_client, world, pc, pv=-5, dice=die)

    assert response.status_code == 302
    pc = reload(pc)
    assert (pc.pv, pc.vital) == (-5, vital)
    # The PV change as damage ignoring PA, then the Survie test it calls for, then the rest.
    assert log(world.campaign) == [
        ("change", "R3", pc.pk, "pv", 10, -5),
        ("roll", "R10", pc.pk, [die], die + 1, die + 1 >= 10),
        *[(kind, rule, pc.pk, *rest) for kind, rule, *rest in then],
        ("change", "R10", pc.pk, "vital", "up", vital),
    ]
    roll = AuditEntry.objects.get(kind="roll")
    assert (roll.action, roll.typed_in, roll.actor_id) == ("character_update", True, world.gm.pk)


def test_r10_the_survie_test_of_an_edit_is_rolled_by_the_server_without_typed_dice(
    gm_client, world
):
    edit(gm_client, world, world.pc, pv=0)

    roll = AuditEntry.objects.get(kind="roll")
    assert (roll.rule_id, roll.typed_in) == ("R10", False)
    assert reload(world.pc).vital in ("coma", "borrowed_time")


def test_r26_flux_set_to_zero_by_hand_makes_the_character_extenue(gm_client, world):
    response = edit(gm_client, world, world.pc, flux=0)

    assert response.status_code == 302
    assert conditions_of(world.pc) == [("extenue", "flux")]
    assert log(world.campaign) == [
        ("change", "R1", world.pc.pk, "flux", 7, 0),
        ("change", "R26", world.pc.pk, "conditions", [], [EXTENUE_FLUX]),
    ]


def test_r10_pv_raised_above_zero_by_hand_cancels_the_coming_coma(gm_client, world):
    pc = put(
        world.pc,
        pv=-1,
        vital="borrowed_time",
        coma_due=at(minutes=10),
        conditions=[("extenue", "deaths_door")],
    )
    edit(gm_client, world, pc, pv=4)

    pc = reload(pc)
    assert (pc.pv, pc.vital, pc.coma_due) == (4, "up", None)
    assert conditions_of(pc) == []
    assert log(world.campaign)[0] == ("change", "R1", pc.pk, "pv", -1, 4)


def test_an_edit_publishes_the_character_and_its_open_card_shows_the_new_values(
    gm_client, world, published
):
    card = reverse("character_card", args=[world.campaign.pk, world.pc.pk])
    before = gm_client.get(card).content.decode()  # rendered, and cached for its version
    assert '<span class="value" data-testid="pv">11 / 14</span>' in before
    version = reload(world.pc).version

    edit(gm_client, world, world.pc, pv=5)

    last = AuditEntry.objects.latest("id")
    assert published == [(world.campaign.pk, [world.pc.pk], last.pk)]
    assert reload(world.pc).version > version  # a new cache key: the card renders anew
    after = gm_client.get(card).content.decode()
    assert '<span class="value" data-testid="pv">5 / 14</span>' in after


def test_each_changed_field_gets_one_entry_with_before_and_after(gm_client, world):
    stats = {f"stat_{code}": value for code, value in world.pc.stats.items()}
    stats["stat_VAI"] = 3
    edit(
        gm_client,
        world,
        world.pc,
        name="Isaure de Sel",
        public_notes="Porte une lanterne rouge.",
        gm_notes="La fille du Vicomte, qui le sait.",
        pv_max=16,
        flux_max=12,
        pa=3,
        actions=3,
        reflexes=0,
        **stats,
    )

    pc = reload(world.pc)
    assert (pc.name, pc.pv_max, pc.flux_max, pc.pa, pc.stats["VAI"]) == (
        "Isaure de Sel",
        16,
        12,
        3,
        3,
    )
    entries = list(AuditEntry.objects.order_by("id"))
    assert [(e.field, e.before, e.after) for e in entries] == [
        ("public_notes", "Porte une lanterne bleue.", "Porte une lanterne rouge."),
        ("gm_notes", "Secretement la fille du Vicomte.", "La fille du Vicomte, qui le sait."),
        ("name", "Isaure", "Isaure de Sel"),
        ("pa", 2, 3),
        ("actions", 2, 3),
        ("reflexes", 1, 0),
        ("stats", list(map(list, world.pc.stats.items())), [
            [code, 3 if code == "VAI" else value] for code, value in world.pc.stats.items()
        ]),
        ("pv_max", 14, 16),
        ("flux_max", 10, 12),
    ]  # fmt: skip
    assert [e.rule_id for e in entries] == ["", "", "", "R3", "R4", "R4", "R2", "R1", "R1"]
    assert {e.action for e in entries} == {"character_update"}
    texts = {e.field: (e.text_fr, e.text_en) for e in entries}
    assert texts["name"] == ("nom : Isaure → Isaure de Sel", "name: Isaure → Isaure de Sel")
    assert texts["stats"] == ("R2 · statistiques : VAI 1 → 3", "R2 · statistics: VAI 1 → 3")
    assert texts["pv_max"] == ("R1 · PV max : 14 → 16", "R1 · max PV: 14 → 16")
    assert texts["public_notes"][0] == (
        "notes publiques : « Porte une lanterne bleue. » → « Porte une lanterne rouge. »"
    )


def test_the_gms_notes_entry_is_for_the_gm_only(gm_client, world):
    edit(gm_client, world, world.pc, gm_notes="Un secret de plus.", public_notes="Rien.")

    notes = AuditEntry.objects.get(field="gm_notes")
    assert notes.visibility == "gm"
    seen = visible_entries(world.player_membership)
    assert list(seen.values_list("field", flat=True)) == ["public_notes"]


def test_an_owner_and_a_kind_change_name_the_people(gm_client, world):
    edit(gm_client, world, world.pc, owner=world.other_player.pk)
    edit(gm_client, world, world.pc, owner="", kind="npc")

    texts = list(AuditEntry.objects.order_by("id").values_list("field", "text_fr", "text_en"))
    assert texts == [
        (
            "owner",
            "joueur ou joueuse : paul_joueur → olivia_joueuse",
            "player: paul_joueur → olivia_joueuse",
        ),
        ("kind", "type : PJ → PNJ", "kind: PC → NPC"),
        ("owner", "joueur ou joueuse : olivia_joueuse → —", "player: olivia_joueuse → —"),
    ]
    assert reload(world.pc).owner_id is None


def test_r1_a_maximum_lowered_below_the_current_value_brings_it_down(gm_client, world):
    response = edit(gm_client, world, world.pc, pv_max=9, flux_max=0)

    assert response.status_code == 302
    pc = reload(world.pc)
    assert (pc.pv, pc.pv_max, pc.flux, pc.flux_max) == (9, 9, 0, 0)
    assert log(world.campaign) == [
        ("change", "R1", pc.pk, "pv", 11, 9),
        ("change", "R1", pc.pk, "pv_max", 14, 9),
        ("change", "R1", pc.pk, "flux", 7, 0),
        ("change", "R26", pc.pk, "conditions", [], [EXTENUE_FLUX]),  # Flux 0 (R26)
        ("change", "R1", pc.pk, "flux_max", 10, 0),
    ]


def test_r1_a_raised_maximum_makes_room_before_the_value_rises(gm_client, world):
    edit(gm_client, world, world.pc, pv_max=20, pv=18)

    assert log(world.campaign) == [
        ("change", "R1", world.pc.pk, "pv_max", 14, 20),
        ("change", "R1", world.pc.pk, "pv", 11, 18),
    ]


def test_an_edit_that_changes_nothing_writes_and_publishes_nothing(gm_client, world, published):
    before = db_state()
    response = edit(gm_client, world, world.pc)

    assert response.status_code == 302
    assert db_state() == before
    assert published == []


def test_r16_a_dead_characters_pv_cannot_be_set_by_hand(gm_client, world, published):
    pc = put(world.pc, pv=-5, vital="dead")
    before = db_state()
    response = edit(gm_client, world, pc, pv=5, name="Isaure la revenante")

    assert response.status_code == 400
    assert "seul le MJ peut ramener un mort" in response.content.decode()
    assert db_state() == before
    assert published == []


def test_typed_dice_an_edit_did_not_roll_are_refused(gm_client, world):
    before = db_state()
    response = edit(gm_client, world, world.pc, pv=5, dice=12)

    assert response.status_code == 400
    assert "n’ont pas servi : 12" in response.content.decode()
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# Creation


def test_a_new_character_starts_with_its_sheet_in_the_log(gm_client, world):
    data = character_data(
        world.campaign,
        name="Ysolde",
        owner=world.player.pk,
        pv=12,
        pv_max=12,
        flux=0,
        flux_max=8,
        public_notes="Une archère.",
        gm_notes="Espionne.",
    )
    response = gm_client.post(reverse("character_create", args=[world.campaign.pk]), data)

    created = Character.objects.get(name="Ysolde")
    assert response["Location"] == reverse("character", args=[world.campaign.pk, created.pk])
    assert (created.pv, created.flux, created.owner_id) == (12, 0, world.player.pk)
    entries = list(AuditEntry.objects.order_by("id"))
    assert [(e.rule_id, e.field, e.before, e.visibility) for e in entries] == [
        ("", "character", None, "everyone"),
        ("", "public_notes", "", "everyone"),
        ("", "gm_notes", "", "gm"),
        ("R1", "flux", 8, "everyone"),  # reached through the engine: Flux 0 ...
        ("R26", "conditions", [], "everyone"),  # ... makes her Exténué
    ]
    sheet = entries[0]
    assert sheet.after == {
        "name": "Ysolde",
        "kind": "pc",
        "gender": "iel",
        "owner": world.player.pk,
        "stats": dict.fromkeys(world.campaign.stats, 1),
        "pv_max": 12,
        "flux_max": 8,
        "pa": 1,
        "actions": 2,
        "reflexes": 1,
    }
    assert sheet.text_fr == (
        "Personnage créé (PJ joué par paul_joueur) : PV max 12, Flux max 8, PA 1, 2 actions, "
        "1 réflexe ; ADR 1, PUI 1, INS 1, PRE 1, VAI 1, SAV 1, ESP 1"
    )
    assert sheet.text_en == (
        "Character created (PC played by paul_joueur): max PV 12, max Flux 8, PA 1, 2 actions, "
        "1 reflex; ADR 1, PUI 1, INS 1, PRE 1, VAI 1, SAV 1, ESP 1"
    )


def test_r10_a_character_created_at_zero_pv_makes_the_survie_test(gm, world):
    result = services.character_create(
        campaign_id=world.campaign.pk,
        actor=gm,
        name="Blessé",
        kind="npc",
        pv=0,
        pv_max=10,
        flux_max=0,
        dice=[2],
    )

    created = Character.objects.get(pk=result.character_ids[0])
    assert (created.pv, created.vital) == (0, "coma")
    assert [e.rule_id for e in result.entries if e.kind == "roll"] == ["R10"]
    assert result.entries[0].text_fr.startswith("Personnage créé (PNJ) : PV max 10, Flux max 0")


def test_a_sheet_the_model_refuses_is_refused_by_the_service_too(gm, world, other_player):
    # The forms check first; other callers (the admin, a command) meet the same rules.
    from django.core.exceptions import ValidationError

    before = db_state()
    with pytest.raises(ValidationError):
        services.character_update(character_id=world.npc.pk, actor=gm, owner=other_player)
    with pytest.raises(ValidationError):
        services.character_create(
            campaign_id=world.campaign.pk, actor=gm, name="Trop", pv=5, pv_max=4, flux_max=0
        )
    assert db_state() == before


# ---------------------------------------------------------------------------------------------
# Undo


def test_a_sheet_edit_is_undone_like_any_action(gm, gm_client, world):
    edit(gm_client, world, world.pc, name="Isaure de Sel", gm_notes="", owner="", pv=3)
    last = AuditEntry.objects.latest("id")

    undo = services.entry_undo(
        campaign_id=world.campaign.pk, actor=gm, entry_id=last.pk, whole_action=True
    )

    pc = reload(world.pc)
    assert (pc.name, pc.gm_notes, pc.owner_id, pc.pv) == (
        "Isaure",
        "Secretement la fille du Vicomte.",
        world.player.pk,
        11,
    )
    assert [e.field for e in undo.entries] == ["pv", "name", "gm_notes", "owner"]
    assert undo.entries[2].visibility == "gm"
    assert undo.entries[3].text_fr.endswith("joueur ou joueuse : — → paul_joueur")


def test_an_owner_who_left_the_campaign_is_not_given_the_character_back(gm, gm_client, world):
    edit(gm_client, world, world.pc, owner="")
    entry = AuditEntry.objects.get(field="owner")
    world.player_membership.delete()
    before = db_state()

    with pytest.raises(services.NotUndoable):
        services.entry_undo(campaign_id=world.campaign.pk, actor=gm, entry_id=entry.pk)
    assert db_state() == before


def test_a_creation_is_not_undone(gm, world):
    result = services.character_create(
        campaign_id=world.campaign.pk, actor=gm, name="Ysolde", pv_max=10, flux_max=4
    )
    with pytest.raises(services.NotUndoable):
        services.entry_undo(campaign_id=world.campaign.pk, actor=gm, entry_id=result.entries[0].pk)


def test_a_dead_characters_name_may_still_be_put_back(gm, gm_client, world):
    edit(gm_client, world, world.pc, name="Isaure de Sel")
    entry = AuditEntry.objects.get(field="name")
    put(world.pc, vital="dead")

    services.entry_undo(campaign_id=world.campaign.pk, actor=gm, entry_id=entry.pk)
    assert reload(world.pc).name == "Isaure"


def test_the_engine_state_holds_what_an_edit_wrote(gm_client, world):
    # Rows -> engine state after the edit: the name and stats reach the engine too.
    edit(gm_client, world, world.pc, name="Isaure de Sel", stat_VAI=4)
    from characters.state import character_state

    pc = Character.objects.prefetch_related("conditions", "sequels").get(pk=world.pc.pk)
    state = character_state(pc, world.campaign.stats)
    assert (state.name, state.stat("VAI")) == ("Isaure de Sel", 4)
    assert isinstance(state.vital, engine.Vital)


def test_the_history_explains_why_a_creation_is_not_undone(gm, gm_client, world):
    result = services.character_create(
        campaign_id=world.campaign.pk, actor=gm, name="Ysolde", pv_max=10, flux_max=4
    )
    entry = result.entries[0]
    before = db_state()

    response = gm_client.post(reverse("entry_undo", args=[world.campaign.pk, entry.pk]))

    assert response.status_code == 400
    assert "une création ne s’annule pas" in response.content.decode()
    assert db_state() == before


def test_a_new_character_starts_at_its_maxima_without_dice_and_may_be_followed_by_another(
    gm_client, world
):
    url = reverse("character_create", args=[world.campaign.pk])
    form = gm_client.get(url).content.decode()
    assert 'name="dice"' not in form  # R10's Survie on creation is the server's
    assert 'name="another"' in form and "Enregistrer et ajouter un autre" in form
    data = character_data(world.campaign, name="Garde", kind="npc", pv="", flux="")
    response = gm_client.post(url, {**data, "another": "1"})
    assert response.status_code == 302 and response["Location"] == url
    garde = Character.objects.get(name="Garde")
    assert (garde.pv, garde.flux) == (garde.pv_max, garde.flux_max) == (12, 8)
    # Given, a current value is kept.
    gm_client.post(url, character_data(world.campaign, name="Blessée", kind="npc", pv="3"))
    assert Character.objects.get(name="Blessée").pv == 3
