"""Steps the browser tests share."""

# The screens the browser tests open: the GM's dashboard, a smaller laptop, a phone.
GM_VIEWPORT = {"width": 1440, "height": 900}
LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# Set on the page before acting: a reload would wipe it, so its survival proves none happened.
NO_RELOAD = "window.__chroniqueur_no_reload"

# Every error event htmx 2 fires (each also fires `htmx:error`), caught in the capture phase so
# that no handler stopping their propagation can hide them.
HTMX_ERRORS = """
window.__htmx_errors = [];
[
  "htmx:error", "htmx:responseError", "htmx:targetError", "htmx:oobErrorNoTarget",
  "htmx:swapError", "htmx:sendError", "htmx:sendAbort", "htmx:timeout", "htmx:onLoadError",
  "htmx:historyCacheError", "htmx:evalDisallowedError", "htmx:invalidPath", "htmx:syntax:error"
].forEach(function (name) {
  window.addEventListener(name, function (evt) {
    var detail = evt.detail || {}, target = detail.target;
    var where = target && target.id ? "#" + target.id : String(target);
    var why = detail.error ? String(detail.error) : detail.xhr ? "status " + detail.xhr.status : "";
    window.__htmx_errors.push(name + " " + where + (why ? " (" + why + ")" : ""));
  }, true);
});
"""

PASSWORD = "correct horse battery"  # tests' users (tests/conftest.py); the demo's is "demo"


def log_in(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    """Log `username` in through the login form; the page ends on the home page."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base_url}/")
