"""The one error every puzzle parser raises."""
from ..limits import TooLarge


class PuzzleError(ValueError):
    """Bad puzzle input; the message is one line naming where and what."""


class PuzzleTooLarge(PuzzleError, TooLarge):
    """A puzzle file describing a grid over the size limit (``limits.check_cells``)."""
