"""SVG passes an allow-list of elements and attributes: nothing in it runs or fetches once the file is opened as
a document. The allow-list is applied where a bank is checked, where a file is exported and where a package is
imported."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from moe_lms import formats, media
from moe_lms.formats import ExportOptions
from moe_lms.formats.cc11 import read as cc11_read
from moe_lms.loader import check_bank, load_bank
from moe_lms.model import MediaItem
from moe_lms.problems import ProblemsFound

from ..rich_support import SVG
from .corpus import bank_with_stem

OPEN = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">'

HOSTILE_SVGS = {
    "animate sets a link to javascript": OPEN
    + '<a><animate attributeName="href" values="javascript:alert(1)"/><rect width="5" height="5"/></a></svg>',
    "set sets xlink:href": OPEN
    + '<a><set attributeName="xlink:href" to="javascript:alert(1)"/><rect width="5" height="5"/></a></svg>',
    "URL( in upper case": OPEN + '<rect width="5" height="5" style="fill:URL(https://example.invalid/x)"/></svg>',
    "a CSS escape spells url": OPEN
    + '<rect width="5" height="5" style="fill:\\75rl(https://example.invalid/x)"/></svg>',
    "fill=url(http…)": OPEN + '<rect width="5" height="5" fill="url(http://example.invalid/x#g)"/></svg>',
    "@import in a style": OPEN + "<style>@import 'https://example.invalid/x.css';</style></svg>",
    "xml-stylesheet before the root": '<?xml-stylesheet href="https://example.invalid/x.css"?>' + OPEN + "</svg>",
    "a processing instruction inside": OPEN + "<?php echo 1 ?></svg>",
    "XHTML inside": OPEN + '<html:script xmlns:html="http://www.w3.org/1999/xhtml">alert(1)</html:script></svg>',
    "an element off the list": OPEN + "<handler>alert(1)</handler></svg>",
    "a link out of the file": OPEN + '<a href="https://example.invalid/"><rect width="5" height="5"/></a></svg>',
    "use of another file": OPEN + '<use xlink:href="https://example.invalid/x.svg#a"/></svg>',
    "an event attribute": OPEN + '<rect width="5" height="5" onmouseover="alert(1)"/></svg>',
    "an attribute off the list": OPEN + '<rect width="5" height="5" formaction="x"/></svg>',
    "an SVG image inside": OPEN + '<image href="data:image/svg+xml;base64,PHN2Zz4="/></svg>',
}

FINE_SVGS = {
    "the test bank's": SVG,
    "a gradient by fragment": OPEN + '<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/>'
    '</linearGradient></defs><rect width="5" height="5" fill="url(#g)"/></svg>',
    "an animated colour": OPEN + '<rect width="5" height="5"><animate attributeName="fill" values="red;blue" '
    'dur="2s"/></rect></svg>',
    "Inkscape metadata": OPEN.replace(
        ">", ' xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" inkscape:version="1.3">', 1
    )
    + '<g inkscape:label="Layer 1"><use xlink:href="#r"/></g></svg>',
}


@pytest.mark.parametrize("svg", HOSTILE_SVGS.values(), ids=HOSTILE_SVGS.keys())
def test_check_refuses_an_svg_outside_the_allow_list(tmp_path: Path, svg: str) -> None:
    directory = bank_with_stem(tmp_path, "See ![a picture](media/x.svg).", media={"x.svg": svg.encode()})
    _bank, problems = check_bank(directory)
    assert any("SVG 'media/x.svg' is refused" in p.message for p in problems), problems


@pytest.mark.parametrize("svg", FINE_SVGS.values(), ids=FINE_SVGS.keys())
def test_an_svg_of_static_drawing_passes(svg: str) -> None:
    assert media.svg_problem(svg.encode()) is None


@pytest.mark.parametrize("name", ["qti21", "html", "moodle", "cc11"])
def test_an_export_refuses_a_bank_whose_svg_the_allow_list_refuses(tmp_path: Path, name: str) -> None:
    """A bank made without the loader (an importer's, a program's) goes through the same check at export."""
    directory = bank_with_stem(tmp_path, "See ![a picture](media/ok.svg).")
    bank = load_bank(directory)
    hostile = HOSTILE_SVGS["animate sets a link to javascript"].encode()
    bank = bank.model_copy(update={"media": {"media/ok.svg": MediaItem("media/ok.svg", hostile, media.SVG, "0")}})
    out = io.BytesIO()
    with pytest.raises(ProblemsFound, match="is refused"):
        formats.get(name).write(bank, ExportOptions(locales=bank.locales), out)
    assert b"javascript" not in out.getvalue()


def test_an_imported_package_cannot_bring_a_script_svg_into_the_bank(tmp_path: Path) -> None:
    directory = bank_with_stem(tmp_path, "See ![a picture](media/ok.svg).")
    bank = load_bank(directory)
    package = formats.get("cc11").dump(bank, ExportOptions(locales=bank.locales))
    hostile = HOSTILE_SVGS["animate sets a link to javascript"].encode()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info, hostile if info.filename.endswith("ok.svg") else source.read(info))
    imported, problems = cc11_read.read_package(out.getvalue())
    assert imported is not None and "media/ok.svg" not in imported.media
    assert any("allow-list refuses" in p.message for p in problems)


def test_a_moodle_file_cannot_bring_a_script_svg_into_the_bank(tmp_path: Path) -> None:
    import base64

    from moe_lms.formats import moodle

    bank = load_bank(bank_with_stem(tmp_path, "See ![a picture](media/ok.svg)."))
    data = formats.get("moodle").dump(bank, ExportOptions(locales=bank.locales))
    hostile = base64.b64encode(HOSTILE_SVGS["animate sets a link to javascript"].encode())
    swapped = data.replace(base64.b64encode(SVG.encode()), hostile)
    assert swapped != data
    result = moodle.load(swapped)
    assert result.bank is not None and "media/ok.svg" not in result.bank.media
    assert any("allow-list refuses" in p.message for p in result.problems)
