"""Steps the browser tests share."""

PASSWORD = "correct horse battery"  # tests' users (tests/conftest.py); the demo's is "demo"


def log_in(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    """Log `username` in through the login form; the page ends on the home page."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base_url}/")
