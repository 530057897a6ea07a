"""The one error every puzzle parser raises."""
from ...engine.limits import TooLarge


class PuzzleError(ValueError):
    """Bad puzzle input; the message is one line naming where and what."""


class PuzzleTooLarge(PuzzleError, TooLarge):
    """A puzzle file describing a grid over the size limit (``limits.check_cells``)."""


class ShapeError(PuzzleError):
    """Text whose size is no puzzle of the kind that reads it (a line of 65 symbols, 17 rows of 16 numbers):
    maybe a puzzle of another kind. An error about content (a bad symbol, givens that clash) is not one."""
