"""Make Graphviz's SVG output fit for a bank: no DOCTYPE, no comments, no <title>, no unused xlink namespace.

Usage: python clean_svg.py IN.svg OUT.svg   (needs lxml, a dependency of moe-lms)

moe-lms accepts only clean SVG (no DOCTYPE, scripts, event attributes, <foreignObject> or external
references). Graphviz writes a DOCTYPE, generator comments and a <title> per node and edge (node ids such
as "E1->t", which a screen reader would read out); the image's alt text in bank.yaml describes it instead.
The output is deterministic for a given Graphviz version (see Makefile).
"""

from __future__ import annotations

import os
import sys
import tempfile

from lxml import etree

SVG = "http://www.w3.org/2000/svg"


def clean(data: bytes) -> bytes:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True)
    root = etree.fromstring(data, parser)
    for title in root.iter(f"{{{SVG}}}title"):
        title.getparent().remove(title)
    for el in root.iter():
        for name in list(el.attrib):
            if name.startswith("on") or name.startswith("{http://www.w3.org/1999/xlink}"):
                raise SystemExit(f"unexpected attribute {name!r} on <{el.tag}>")
    etree.cleanup_namespaces(root)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"


def main(src: str, dst: str) -> None:
    with open(src, "rb") as f:
        out = clean(f.read())
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(dst)), suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(out)
    os.replace(tmp, dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
