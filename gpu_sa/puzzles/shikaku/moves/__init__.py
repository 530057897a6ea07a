"""Shikaku's move set ``rect`` (one clue takes another candidate rectangle); its NumPy twin is
``cpu_ref.shikaku.rect``."""
