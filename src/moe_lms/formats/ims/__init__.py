"""What the IMS family of formats shares (QTI 2.1, QTI 3, Common Cartridge, Canvas QTI), written once.

- :mod:`.xhtml`: rendered HTML into the XHTML subset a QTI item carries, parameterised by the target's vocabulary
  (its namespace; whether a direction is a ``dir`` attribute or a class);
- :mod:`.cp`: IMS Content Packaging manifests and their LOM metadata, both directions, and opening a package;
- :mod:`.assessment`: reading an assessment test back (its sections, draws, time limit, attempts) into quizzes.

As pandoc's ``Writers/OOXML.hs`` serves Docx and PowerPoint: a format imports from here, never from another
format. This package must not know any one format's names (namespaces, resource types, file layout): each format
passes its own.
"""
