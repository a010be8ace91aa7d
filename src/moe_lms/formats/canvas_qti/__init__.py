"""Canvas's own QTI 1.2 flavour: the package Canvas writes when it exports a quiz and reads most faithfully (each
answer's comments included). ``write`` makes one quiz per locale (items from :mod:`..qti12`), ``read`` turns such a
package (ours, Canvas's, text2qti's) back into a bank; ``push canvas --via qti`` uploads it."""

from __future__ import annotations

from .. import Format, Guide, Held, Offer, ShelfEntry, lazy, one_package


def _guide(held: Held, first: bool) -> list[str]:
    return [
        "Upload the Canvas QTI package (Canvas's own quiz format: each answer's explanation becomes its comment):",
        "",
        "1. In your course go to **Settings → Import Course Content**.",
        "2. **Content Type: QTI .zip file**; choose the `.canvas-qti.zip` of your language.",
        "3. **Import**, and wait until **Current Jobs** says *Completed*; the quiz is then under **Quizzes**.",
        "",
    ]


FORMAT = Format(
    name="canvas-qti",
    description="Canvas QTI 1.2 quiz package (a quiz per language, with answer comments)",
    suffix=".canvas-qti.zip",
    write=lazy(".canvas_qti.write:write"),  # (imported when used: check lists the registry without it)
    quizzes=True,
    label="Canvas QTI",
    read=one_package(".canvas_qti.read:read_package"),
    read_help="""Read a Canvas QTI 1.2 package (a Canvas quiz export, text2qti's, moe-lms's) into a bank directory.

    Multiple-choice, multiple-answer and true/false questions are kept with each answer's comments as its
    explanation and the neutral comments as the general one. Hostile packages are refused as for qti21.
    (validate checks such a package as a QTI 1.2 package.)
    """,
    shelf=ShelfEntry(
        label="Canvas QTI",
        offers=(Offer(22, "**Canvas**", "the `.canvas-qti.zip` package"),),
        guide=(Guide(31, "Canvas", _guide),),
    ),
)
