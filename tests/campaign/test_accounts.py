"""Accounts (campaign/account_urls.py): sign up, log in, out, reset and change a password.

Who gets what on each of these pages is tests/test_permissions.py's table.
"""

import re

from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.helpers import db_state


def test_it_says_a_bad_reset_link_is_invalid(anon_client, db):
    response = anon_client.get("/accounts/reset/Mg/not-a-token/")
    assert response.context["validlink"] is False
    assert 'name="new_password1"' not in response.content.decode()


def test_it_signs_up_and_logs_in(anon_client, db):
    response = anon_client.post(
        reverse("signup"),
        {
            "username": "nouvelle",
            "email": "nouvelle@example.com",
            "password1": "une lanterne bleue 42",
            "password2": "une lanterne bleue 42",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    user = get_user_model().objects.get(username="nouvelle")
    assert anon_client.session["_auth_user_id"] == str(user.pk)


def test_it_follows_a_local_next_after_sign_up(anon_client, invitation):
    join = reverse("join", args=[invitation.token])
    response = anon_client.post(
        f"{reverse('signup')}?next={join}",
        {"username": "nouvelle", "password1": "une lanterne 42", "password2": "une lanterne 42"},
    )
    assert response.status_code == 302
    assert response["Location"] == join


def test_it_never_redirects_to_another_site_after_sign_up(anon_client, db):
    response = anon_client.post(
        f"{reverse('signup')}?next=https://evil.example/",
        {"username": "nouvelle", "password1": "une lanterne 42", "password2": "une lanterne 42"},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("home")


def test_it_rerenders_signup_with_errors_and_creates_nobody(anon_client, db):
    before = db_state()
    response = anon_client.post(
        reverse("signup"),
        {"username": "x" * 500, "password1": "un mot de passe", "password2": "un autre"},
    )
    assert response.status_code == 400
    form = response.context["form"]
    assert "username" in form.errors
    assert "password2" in form.errors
    assert db_state() == before


def test_it_logs_in_and_out(anon_client, player):
    response = anon_client.post(
        reverse("login"), {"username": player.username, "password": "correct horse battery"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert anon_client.session["_auth_user_id"] == str(player.pk)

    response = anon_client.post(reverse("logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in anon_client.session


def test_it_refuses_a_wrong_password(anon_client, player):
    response = anon_client.post(
        reverse("login"), {"username": player.username, "password": "wrong"}
    )
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert "_auth_user_id" not in anon_client.session


def test_it_mails_a_working_password_reset_link(anon_client, player, mailoutbox):
    response = anon_client.post(reverse("password_reset"), {"email": player.email})
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_done")
    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == [player.email]
    match = re.search(r"https?://[^/\s]+(/accounts/reset/[^/\s]+/[^/\s]+/)", mail.body)
    assert match, mail.body

    # The link works once: it leads to the form that sets a new password.
    response = anon_client.get(match.group(1), follow=True)
    assert response.context["validlink"] is True
    response = anon_client.post(
        response.redirect_chain[-1][0],
        {"new_password1": "un tout nouveau secret", "new_password2": "un tout nouveau secret"},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_complete")
    player.refresh_from_db()
    assert player.check_password("un tout nouveau secret")


def test_it_sends_no_mail_for_an_unknown_address(anon_client, db, mailoutbox):
    response = anon_client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    # The same answer as for a known address, so nobody can probe for accounts.
    assert response.status_code == 302
    assert mailoutbox == []


def test_it_changes_a_password(player_client, player):
    response = player_client.post(
        reverse("password_change"),
        {
            "old_password": "correct horse battery",
            "new_password1": "un tout nouveau secret",
            "new_password2": "un tout nouveau secret",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("password_change_done")
    player.refresh_from_db()
    assert player.check_password("un tout nouveau secret")
