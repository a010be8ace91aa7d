"""Open edX OLX: a course export that Studio's *Import* takes (``.tar.gz``, one course per language). ``write``
makes one, ``read`` turns one (or one per language) back into a bank, ``validate`` checks one as Open edX would
read it: the course tree resolves, every problem is a choice problem with a key and a hint for each choice."""

from __future__ import annotations

from .. import Format
from .write import write

FORMAT = Format(
    name="olx",
    description="Open edX course (OLX .tar.gz for Studio's Import: a quiz of capa choice problems, one language)",
    suffix=".olx.tar.gz",
    write=write,
    one_locale_per_file=True,
    quizzes=True,
)
