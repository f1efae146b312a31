"""Live updates: the per-campaign Server-Sent Events stream and its polling fallback, which
read through the journal's visibility rule and render cards through `play`. The top app."""
