"""Seals: the head of the log in a form people keep, printed at the end of every
export and recap, shown and checked on the history page and by a small JSON endpoint, and
proven by `verify_log --seal`."""

import csv
import io
import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from journal import audit
from tests.helpers import delete_tail, entries, play_a_little
from tests.play.steps import run

SEAL = re.compile(r"CHQ1-\d+-\d+-\d+-[0-9a-f]{16}")


def body(response) -> str:
    assert response.status_code == 200, response.status_code
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def export(client, campaign, fmt) -> str:
    return body(client.get(reverse("history_export", args=[campaign.pk, fmt])))


@pytest.fixture
def played(world):
    play_a_little(world.campaign, world.gm, world.pc)
    return world


def test_every_export_and_the_recap_end_with_the_current_seal(played, gm_client, player_client):
    campaign = played.campaign
    seal = str(audit.seal_for(campaign.pk))
    assert seal.endswith(entries(campaign)[-1].hash[:16])
    for client in (gm_client, player_client):
        # A spreadsheet reads every CSV row as an entry: the seal is in the file's name.
        response = client.get(reverse("history_export", args=[campaign.pk, "csv"]))
        assert f"-{seal}.csv" in response["Content-Disposition"]
        text = body(response).lstrip("\ufeff")
        rows = list(csv.reader(io.StringIO(text), delimiter=";"))
        assert len(rows) == 1 + len(entries(campaign)) and seal not in text

        document = json.loads(export(client, campaign, "json"))
        assert list(document) == ["entries", "seal"]  # the seal last
        assert document["seal"]["seal"] == seal and document["seal"]["count"] == 5

        markdown = export(client, campaign, "md")
        last_line = markdown.rstrip("\n").splitlines()[-1]
        assert last_line.startswith(f"Sceau du journal\u00a0: `{seal}` (5\u00a0entrées") or (
            last_line.startswith(f"Sceau du journal\u00a0: `{seal}` (5 entrées")
        )
        assert "verify\\_log --seal" in last_line

        session = campaign.sessions.first()
        recap = body(client.get(reverse("session_recap", args=[campaign.pk, session.pk])))
        assert recap.rstrip("\n").splitlines()[-1] == last_line


def test_an_export_in_english_says_seal_in_english(played, gm_client):
    response = gm_client.get(
        reverse("history_export", args=[played.campaign.pk, "md"]),
        headers={"accept-language": "en"},
    )
    assert "Seal of the log: `CHQ1-" in body(response)


def test_a_seal_from_an_export_before_a_tail_deletion_makes_verify_log_fail(played, gm_client):
    campaign = played.campaign
    (kept,) = SEAL.findall(export(gm_client, campaign, "md"))
    call_command("verify_log", "--seal", kept, stdout=StringIO())  # today it extends it

    delete_tail(1, campaign)

    out = StringIO()
    with pytest.raises(CommandError, match=rf"campaign\(s\) {campaign.pk}\b"):
        call_command("verify_log", "--seal", kept, stdout=out)
    assert f"does not extend seal {kept}" in out.getvalue()
    # The newer export carries a newer, shorter seal; the kept one still fails.
    (newer,) = SEAL.findall(export(gm_client, campaign, "md"))
    assert newer != kept
    call_command("verify_log", "--seal", newer, stdout=StringIO())


def test_the_history_page_shows_the_seal_and_checks_a_pasted_one(played, gm_client, player_client):
    campaign = played.campaign
    url = reverse("history", args=[campaign.pk])
    kept = str(audit.seal_for(campaign.pk))
    page = gm_client.get(url)
    assert page.context["seal"] == audit.seal_for(campaign.pk)
    assert f'data-testid="current-seal">{kept}</code>' in body(page)

    run(campaign, played.gm, "damage", {"amount": "3"}, character=played.pc)
    for client in (gm_client, player_client):
        checked = body(client.get(url, {"seal": f" {kept.lower()} "}))
        assert "Ce journal prolonge bien ce sceau." in checked

    delete_tail(2, campaign)
    failed = body(gm_client.get(url, {"seal": kept}))
    entry = kept.split("-")[2]
    assert (
        "Ce journal ne prolonge PAS ce sceau\u00a0: l’entrée n°\u00a0"
        f"{entry}, la dernière qu’il scelle, n’est plus dans le journal. "
        "La fin du journal a été effacée."
    ) in failed
    assert "Ce journal prolonge bien" not in failed
    assert "«  »" not in failed

    bad = gm_client.get(url, {"seal": "n’importe quoi"})
    assert bad.status_code == 400
    assert "Ce texte n’est pas un sceau." in bad.content.decode()


def test_the_seal_endpoint_answers_open_pages(played, player_client, outsider_client):
    campaign = played.campaign
    url = reverse("history_seal", args=[campaign.pk])
    kept = str(audit.seal_for(campaign.pk))
    assert player_client.get(url).json() == {
        "seal": kept,
        "count": 5,
        "at": audit.seal_for(campaign.pk).at and player_client.get(url).json()["at"],
    }
    answer = player_client.get(url, {"seal": kept}).json()
    assert answer["extends"] is True and answer["problem"] is None
    assert answer["message"] == "Ce journal prolonge bien ce sceau."

    # Rewritten behind the app's back, even with the key: the sealed entry is not the same.
    head = entries(campaign)[-1]
    key = audit.keyring().key(head.key_id)
    from tests.helpers import rewrite

    rewrite(entries(campaign)[0].pk, key, text_fr="R3 · réécrit")
    answer = player_client.get(url, {"seal": kept}).json()
    assert answer["extends"] is False and answer["problem"] == "changed"
    assert "Le journal a été réécrit." in answer["message"]
    assert answer["seal"] != kept

    bad = player_client.get(url, {"seal": "CHQ1-oups"})
    assert bad.status_code == 400 and "n’est pas un sceau" in bad.json()["error"]
    assert outsider_client.get(url).status_code == 404


def test_the_seal_endpoint_sees_an_entry_rewritten_after_the_seal_without_the_key(
    played, player_client
):
    campaign = played.campaign
    url = reverse("history_seal", args=[campaign.pk])
    kept = str(audit.seal_for(campaign.pk))
    run(campaign, played.gm, "damage", {"amount": "3"}, character=played.pc)
    from tests.helpers import rewrite

    later = entries(campaign)[-1]
    rewrite(later.pk, audit.derived_key("pas la bonne clef"), text_fr="R10 · autre chose")
    answer = player_client.get(url, {"seal": kept}).json()
    assert answer["extends"] is False and answer["problem"] == "broken"
    assert f"l’entrée n°\u00a0{later.pk} a été modifiée après avoir été écrite" in answer["message"]


def test_an_open_pages_check_reads_a_bounded_stretch_verify_log_reads_all(
    played, player_client, monkeypatch
):
    """A page's check stays quick however old the seal (SEAL_CHECK_LIMIT entries after it);
    `verify_log --seal` is the full proof."""
    campaign = played.campaign
    kept = str(audit.seal_for(campaign.pk))
    for _ in range(3):
        run(campaign, played.gm, "damage", {"amount": "3"}, character=played.pc)
    monkeypatch.setattr(audit, "SEAL_CHECK_LIMIT", 2)
    from tests.helpers import rewrite

    last = entries(campaign)[-1]
    rewrite(last.pk, audit.derived_key("pas la bonne clef"), text_fr="R3 · autre chose")
    url = reverse("history_seal", args=[campaign.pk])
    assert player_client.get(url, {"seal": kept}).json()["extends"] is True
    with pytest.raises(CommandError):
        call_command("verify_log", "--seal", kept, stdout=StringIO())
    monkeypatch.setattr(audit, "SEAL_CHECK_LIMIT", 20_000)
    assert player_client.get(url, {"seal": kept}).json()["problem"] == "broken"
