"""The client's address behind a reverse proxy, trusted only from the proxy the deployment
names (TRUSTED_PROXIES).

uvicorn runs with `--no-proxy-headers` everywhere (Makefile, Dockerfile, docker-compose.yml):
left to itself it believes `X-Forwarded-For` from 127.0.0.1 (its default), or from everyone
with `--forwarded-allow-ips='*'`, and any client could then pick the address django-axes
counts its failed logins under, and the address the logs show. Here the app itself reads the
header, and only when the connection comes from one of TRUSTED_PROXIES (addresses or networks);
with none named (the default) nobody is believed, and the address is the connection's.
"""

from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware


def behind_proxies(application, proxies):
    """`application`, reading the client's address and scheme from `X-Forwarded-For` and
    `X-Forwarded-Proto` only when its peer is one of `proxies` (the nearest untrusted address
    of the list is the client's)."""
    if not proxies:
        return application
    return ProxyHeadersMiddleware(application, trusted_hosts=list(proxies))
