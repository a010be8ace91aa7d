"""Canvas's own QTI 1.2 flavour: the package Canvas writes when it exports a quiz and reads most faithfully (each
answer's comments included). ``write`` makes one quiz per locale (items from :mod:`..qti12`), ``read`` turns such a
package (ours, Canvas's, text2qti's) back into a bank; ``push canvas --via qti`` uploads it."""

from __future__ import annotations

from .. import Format
from .write import write

FORMAT = Format(
    name="canvas-qti",
    description="Canvas QTI 1.2 quiz package (a quiz per language, with answer comments)",
    suffix=".canvas-qti.zip",
    write=write,
    quizzes=True,
)
