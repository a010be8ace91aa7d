"""IMS Common Cartridge 1.1: the one package Blackboard Learn, D2L Brightspace, Sakai, Schoology, Canvas and Moodle
all import. ``write`` makes one (QTI 1.2.1 items in the CC profile, see :mod:`..qti12`), ``read`` turns one back
into a bank, ``validate`` checks one against the official CC 1.1 schemas and what they cannot say."""

from __future__ import annotations

from .. import Format
from .write import write

FORMAT = Format(
    name="cc11",
    description="IMS Common Cartridge 1.1 (question bank and a quiz per language, QTI 1.2.1)",
    suffix=".imscc",
    write=write,
    # ccv1p1_qtiasiv1p2p1_v1p0.xsd: assessmentType holds exactly one section, sectionType only items (no section,
    # no selection_ordering); and a cartridge holds at most one question bank. (Canvas's own CC export keeps the
    # first pick_count questions of a group and drops the draw: lib/cc/qti/qti_generator.rb add_cc_group.)
    quiz_refusal=(
        "the Common Cartridge 1.1 profile of QTI allows an assessment one section of items, without sections or "
        "selection (ccv1p1_qtiasiv1p2p1_v1p0.xsd), so a quiz's sections and draws would be lost; export canvas-qti, "
        "qti21 or moodle for them, or cc11 without --quiz for every question"
    ),
)
