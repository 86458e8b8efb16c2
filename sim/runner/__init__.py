"""The batch runner: configs x match-ups x seeded games, played in chunks, written to Parquet."""
