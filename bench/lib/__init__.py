"""What several benchmarks share: raw HTTP/SSE over asyncio (http.py), a throwaway PostgreSQL
database, logged-in sessions and the app served as the Dockerfile serves it (server.py)."""
