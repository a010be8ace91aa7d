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
)
