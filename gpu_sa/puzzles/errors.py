"""The one error every puzzle parser raises."""


class PuzzleError(ValueError):
    """Bad puzzle input; the message is one line naming where and what."""
