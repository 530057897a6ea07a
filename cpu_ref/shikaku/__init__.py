"""NumPy twin of Shikaku's move ``rect``."""
