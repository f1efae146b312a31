"""Under ASGI the middleware chain runs in one thread (config/middleware.py)."""

import pytest
from asgiref import sync

pytestmark = pytest.mark.django_db


@pytest.fixture
def thread_hops(monkeypatch):
    """Counts the sync-to-async adaptations made while serving a request."""
    calls = []
    original = sync.SyncToAsync.__call__

    async def counting(self, *args, **kwargs):
        calls.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counting)
    return calls


def test_a_request_crosses_to_a_thread_once_not_once_per_middleware(async_client, thread_hops):
    response = sync.async_to_sync(async_client.get)("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"
    # Without SyncMiddlewareChain each MiddlewareMixin hook hops: 20 for this request. With
    # it, what is left is the request_started signal, SecurityMiddleware (outside
    # ServeStatic, which is async-only), the one crossing into the chain, process_view and
    # the view: 7.
    assert len(thread_hops) <= 8, thread_hops


def test_it_is_the_innermost_middleware(settings):
    assert settings.MIDDLEWARE[-1] == "config.middleware.SyncMiddlewareChain"
