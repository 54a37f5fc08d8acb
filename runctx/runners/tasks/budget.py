"""One work budget for every task file read for one command string.

A project's files are another user's text (a planted ``Makefile`` in a shared
checkout) or merely odd: a few kilobytes of make variables that expand into
each other can stand for gigabytes of recipe text, and every text found is
handed to the shell parser in turn. Each file is read with a bound
(:mod:`.files`); this bounds what all of them together may *make*: the
characters that expanding variables produces, and the characters of task
text handed on to the shell parser, summed over every task of the command.

Past the budget a reader gives up on what it was reading, and the budget
keeps the reason (:meth:`WorkBudget.unknown`), an explicit unknown. The
lines it made whole before then are still judged: a task one of them runs
a runner in is a run. Otherwise the task is a run by its name, or one that
*may* start a run, with the budget's reason: the hook names a live run of
its checkout in a warning (:attr:`runctx.shell.commands.TestInvocation.unread`).
"""

from __future__ import annotations

from runctx.unknown import Reason, Unknown

EXPANDED_CHARS_MAX = 1024 * 1024
"""Characters that expanding variables may produce, summed over one command's task files."""
TEXT_CHARS_MAX = 256 * 1024
"""Characters of task text handed to the shell parser for one command, in all."""


class BudgetSpentError(Exception):
    """Raised by a reader's work when the command's budget is spent; the reader gives up."""


class WorkBudget:
    """What reading task files for one command string may still cost.

    ``spent`` is None while there is budget left, then which bound was
    reached (:meth:`unknown` gives it as an explicit unknown).
    """

    __slots__ = ("expanded_left", "expanded_max", "spent", "text_left", "text_max")

    def __init__(
        self, expanded_chars: int = EXPANDED_CHARS_MAX, text_chars: int = TEXT_CHARS_MAX
    ) -> None:
        """Allow ``expanded_chars`` of expansion and ``text_chars`` of task text in all."""
        self.expanded_left = self.expanded_max = expanded_chars
        self.text_left = self.text_max = text_chars
        self.spent: str | None = None

    def unknown(self) -> Unknown | None:
        """Why the tasks read were not known: the bound reached, or None while within it."""
        if self.spent is None:
            return None
        return Unknown(Reason.UNPARSABLE, self.spent)

    def _spend(self, what: str) -> BudgetSpentError:
        self.spent = f"task files past the work budget: {what}"
        return BudgetSpentError(self.spent)

    def expanded(self, chars: int) -> None:
        """Charge ``chars`` characters made by one expansion pass; raise once spent."""
        if self.spent is not None:
            raise BudgetSpentError(self.spent)
        self.expanded_left -= chars
        if self.expanded_left < 0:
            what = f"more than {self.expanded_max} characters of expansion"
            raise self._spend(what)

    def parsed(self, texts: list[str]) -> list[str]:
        """The first of ``texts`` the task-text bound allows, charged: those to parse.

        When not all of them fit, the budget is spent (and says why). Texts a
        reader made whole before the expansion bound was reached are allowed
        as well: what is parsed stays within the bound.
        """
        kept: list[str] = []
        for text in texts:
            if len(text) > self.text_left:
                self._spend(f"more than {self.text_max} characters of task text")
                break
            self.text_left -= len(text)
            kept.append(text)
        return kept
