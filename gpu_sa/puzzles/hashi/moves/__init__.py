"""Hashiwokakero's move set ``bridge`` (one candidate edge gets 0, 1 or 2 bridges); its NumPy twin is
``cpu_ref.hashi.bridge``."""
