"""Login and password-reset throttling (django-axes; campaign.services.password_reset_allow).

A username is refused after LOGIN_FAILURE_LIMIT (10) wrong passwords from whatever addresses,
even with the right one, until LOGIN_LOCKOUT_MINUTES (15) have passed since the last failure;
the admin's login counts the same way. Password-reset mails to one address are limited to
PASSWORD_RESET_MAILS_PER_HOUR (3) an hour, silently.
"""

from __future__ import annotations

import contextlib
import re
from datetime import timedelta
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

pytestmark = pytest.mark.django_db

RIGHT = "correct horse battery"  # tests/conftest.py's password for everyone


@contextlib.contextmanager
def clock_moved(by: timedelta):
    """Everything that reads the time (Django's timezone.now, django-axes' copies of it) runs
    `by` later."""
    real_now = timezone.now
    later = lambda: real_now() + by  # noqa: E731
    with contextlib.ExitStack() as stack:
        for name in ("django.utils.timezone.now", "axes.attempts.now", "axes.handlers.proxy.now"):
            stack.enter_context(mock.patch(name, later))
        yield


def log_in(client, username, password, url=None):
    return client.post(url or reverse("login"), {"username": username, "password": password})


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_the_30th_attempt_is_refused_even_with_the_right_password(anon_client, player):
    for attempt in range(1, 30):
        response = log_in(anon_client, player.username, f"wrong {attempt}")
        # Nine ordinary wrong passwords; the tenth locks, and answers with the lockout page.
        assert response.status_code == (200 if attempt < 10 else 429), attempt

    response = log_in(anon_client, player.username, RIGHT)
    assert response.status_code == 429
    assert not logged_in(anon_client)
    page = response.content.decode()
    assert "Trop d’échecs de connexion" in page
    assert "bloquée pendant 15\u00a0minutes" in page
    # A way back: the password reset and the home page.
    assert f'href="{reverse("password_reset")}"' in page
    assert f'href="{reverse("home")}"' in page


def test_the_account_works_again_after_the_documented_delay(anon_client, player):
    for attempt in range(10):
        log_in(anon_client, player.username, f"wrong {attempt}")
    assert log_in(anon_client, player.username, RIGHT).status_code == 429

    with clock_moved(timedelta(minutes=14)):
        assert log_in(anon_client, player.username, RIGHT).status_code == 429
    # The refused attempt at 14 minutes counts as a failure: 15 minutes from it.
    with clock_moved(timedelta(minutes=14 + 15, seconds=1)):
        response = log_in(anon_client, player.username, RIGHT)
    assert response.status_code == 302
    assert logged_in(anon_client)


def test_nine_failures_then_the_right_password_logs_in_and_starts_afresh(anon_client, player):
    for attempt in range(9):
        log_in(anon_client, player.username, f"wrong {attempt}")
    assert log_in(anon_client, player.username, RIGHT).status_code == 302
    # A success forgets the failures: nine more are still allowed.
    other = Client()
    for attempt in range(9):
        assert log_in(other, player.username, f"wrong {attempt}").status_code == 200
    assert log_in(other, player.username, RIGHT).status_code == 302


def test_the_lockout_is_per_username_whatever_the_address(player, other_player):
    """A client changing its address does not start afresh: once the username is locked, the
    right password from a new address is refused too. Other accounts are unaffected."""
    for attempt in range(10):
        log_in(Client(REMOTE_ADDR=f"203.0.113.{attempt + 1}"), player.username, f"wrong {attempt}")
    refused = log_in(Client(REMOTE_ADDR="198.51.100.7"), player.username, RIGHT)
    assert refused.status_code == 429
    assert "Trop d’échecs de connexion" in refused.content.decode()
    other = log_in(Client(REMOTE_ADDR="203.0.113.1"), other_player.username, RIGHT)
    assert other.status_code == 302


def test_a_forged_x_forwarded_for_neither_resets_nor_escapes_the_count(player):
    """30 wrong passwords, each with a new X-Forwarded-For: the tenth is answered with 429,
    and so is the right password with yet another forged address."""
    statuses = []
    for attempt in range(1, 31):
        client = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"192.0.2.{attempt}")
        statuses.append(log_in(client, player.username, f"wrong {attempt}").status_code)
    assert statuses == [200] * 9 + [429] * 21
    client = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.200")
    assert log_in(client, player.username, RIGHT).status_code == 429
    assert not logged_in(client)


def test_the_admin_login_is_throttled_too(db):
    staff = get_user_model().objects.create_user(
        username="admin_gaelle", email="admin@example.com", password=RIGHT, is_staff=True
    )
    client = Client()
    url = reverse("admin:login")
    for attempt in range(1, 11):
        response = log_in(client, staff.username, f"wrong {attempt}", url)
        assert response.status_code == (200 if attempt < 10 else 429), attempt
    response = log_in(client, staff.username, RIGHT, url)
    assert response.status_code == 429
    assert "Trop d’échecs de connexion" in response.content.decode()
    assert not logged_in(client)


def test_the_settings_come_from_the_environment():
    from django.conf import settings

    assert settings.AXES_FAILURE_LIMIT == 10
    assert settings.AXES_COOLOFF_TIME.total_seconds() == 15 * 60
    assert settings.AXES_LOCKOUT_PARAMETERS == ["username"]
    assert settings.TRUSTED_PROXIES == []


def reset_link(mail) -> str:
    match = re.search(r"https?://[^/\s]+(/accounts/reset/[^/\s]+/[^/\s]+/)", mail.body)
    assert match, mail.body
    return match.group(1)


def test_a_password_set_through_the_mailed_link_lifts_the_lockout(player, mailoutbox):
    attacker = Client()
    for attempt in range(10):
        log_in(attacker, player.username, f"wrong {attempt}")
    assert log_in(attacker, player.username, RIGHT).status_code == 429

    client = Client()
    client.post(reverse("password_reset"), {"email": player.email})
    response = client.get(reset_link(mailoutbox[0]), follow=True)
    new = "un tout nouveau secret"
    response = client.post(
        response.redirect_chain[-1][0], {"new_password1": new, "new_password2": new}
    )
    assert response["Location"] == reverse("password_reset_complete")
    assert log_in(Client(), player.username, new).status_code == 302


def test_reset_mails_to_one_address_are_throttled_silently(
    anon_client, player, other_player, mailoutbox
):
    answers = [
        anon_client.post(reverse("password_reset"), {"email": player.email}) for _ in range(5)
    ]
    # Five times the same answer, three mails.
    assert [(a.status_code, a["Location"]) for a in answers] == [
        (302, reverse("password_reset_done"))
    ] * 5
    assert len(mailoutbox) == 3
    # An unknown address gets that answer too, throttled or not, and no mail.
    for _ in range(5):
        response = anon_client.post(reverse("password_reset"), {"email": "nobody@example.com"})
        assert response["Location"] == reverse("password_reset_done")
    assert len(mailoutbox) == 3
    # Another address is counted apart; the same one, in any case, is not.
    anon_client.post(reverse("password_reset"), {"email": "Olivia_Joueuse@Example.com"})
    anon_client.post(reverse("password_reset"), {"email": player.email.upper()})
    assert [m.to for m in mailoutbox[3:]] == [["olivia_joueuse@example.com"]]

    # An hour later the address gets mail again.
    with clock_moved(timedelta(hours=1, seconds=1)):
        anon_client.post(reverse("password_reset"), {"email": player.email})
    assert len(mailoutbox) == 5
    assert mailoutbox[-1].to == [player.email]


def test_no_address_is_stored_for_a_reset_request(anon_client, db):
    from campaign.models import PasswordResetRequest

    anon_client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    (row,) = PasswordResetRequest.objects.all()
    assert "nobody" not in row.address_digest
