"""QTI 3.0 content packages (IMS CP 1.2 in the QTI 3 profile): ``write`` makes one, ``read`` turns one back into a
bank, ``validate`` checks one against the QTI 3 schemas and what they cannot say."""

from __future__ import annotations

from .. import Format
from .write import write

FORMAT = Format(
    name="qti3",
    description="QTI 3.0 content package (zip: items, a test per language, manifest)",
    suffix=".qti3.zip",
    write=write,
    quizzes=True,
)
