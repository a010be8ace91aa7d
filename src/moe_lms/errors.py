"""The base of moe-lms's exceptions, in a module of its own that imports nothing: the console script catches it
before any command runs (``cli/__init__.py``), and ``--help`` must not pay for more. :mod:`.problems` re-exports it
beside :class:`~moe_lms.problems.ProblemsFound`, its most used subclass."""

from __future__ import annotations


class MoeLmsError(Exception):
    """The base of moe-lms's own errors. The CLI maps each to its exit code in one place (``cli/__init__.py``):
    ``exit_code`` 1, problems in the input, unless a subclass says 2, a usage error. Those that were ValueErrors
    stay ValueErrors too, so callers that catch ValueError still do."""

    exit_code = 1


class OptionError(MoeLmsError, ValueError):
    """Options that do not fit the bank (a locale it does not have, a quiz it does not hold): a usage error."""

    exit_code = 2
