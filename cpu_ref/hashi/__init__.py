"""NumPy twin of Hashiwokakero's move ``bridge``."""
