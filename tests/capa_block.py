"""Open edX's problem XBlock (``ProblemBlock``, xblocks-contrib's ``problem/capa_block.py``) parsed from a course's
problem XML and submitted to as the LMS does (``submit_problem``), so what a learner may submit is the block's own
rule (``max_attempts``, ``closed()``). The runtime gives the block the services it needs (``@XBlock.needs``):
field data in memory, a learner, no sandboxed code, no cache, no queue; URLs are left as written."""

from __future__ import annotations

import gettext
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

Submit = Callable[[bytes, list[str]], list[str]]


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _settings() -> None:
    """capa reads Django settings (STATIC_URL, i18n) and renders its templates with Django."""
    import django
    from django.conf import settings

    spec = importlib.util.find_spec("xblocks_contrib")
    assert spec is not None and spec.origin is not None
    templates = Path(spec.origin).parent / "problem" / "capa" / "templates"
    if not settings.configured:
        backend = "django.template.backends.django.DjangoTemplates"
        settings.configure(
            USE_I18N=False, STATIC_URL="/static/", INSTALLED_APPS=[],
            TEMPLATES=[{"BACKEND": backend, "DIRS": [str(templates)]}],
        )  # fmt: skip
        django.setup()


@pytest.fixture(scope="module")
def submit() -> Submit:
    """``submit(problem_xml, [choice names])``: each submission in turn to one learner's ProblemBlock, and what
    the block answered: ``correct``/``incorrect``, or ``closed: <message>`` when it refused the submission."""
    if importlib.util.find_spec("xblocks_contrib") is None:
        _unavailable("xblocks-contrib (the test extra) is not installed")
    _settings()
    from django.template.loader import get_template
    from opaque_keys.edx.keys import UsageKey
    from xblock.exceptions import NotFoundError
    from xblock.fields import ScopeIds
    from xblock.runtime import DictKeyValueStore, KvsFieldData, MemoryIdManager, Runtime
    from xblocks_contrib.problem.capa_block import ProblemBlock

    class Learner:
        def __init__(self) -> None:
            self.opt_attrs = {"edx-platform.user_id": 1, "edx-platform.anonymous_user_id": "learner"}
            self.emails: list[str] = []
            self.full_name = self.username = "learner"

    class Users:
        def get_current_user(self) -> Learner:
            return Learner()

    class Sandbox:
        def can_execute_unsafe_code(self) -> bool:
            return False

        def get_python_lib_zip(self) -> None:
            return None

    class NoCache:
        def get(self, key: str) -> None:
            return None

        def set(self, *args: object, **kwargs: object) -> None:
            pass

    class Urls:
        def replace_urls(self, text: str, **kwargs: object) -> str:
            return text

    class NoQueue:
        waittime = 0
        interface = None

        def construct_callback(self, *args: object, **kwargs: object) -> str:
            return ""

    class LearnerRuntime(Runtime):  # type: ignore[misc]
        resources_fs = None

        def __init__(self) -> None:
            ids = MemoryIdManager()
            services = {
                "i18n": gettext.NullTranslations(), "user": Users(), "sandbox": Sandbox(), "cache": NoCache(),
                "replace_urls": Urls(), "xqueue": NoQueue(), "field-data": KvsFieldData(DictKeyValueStore()),
            }  # fmt: skip
            super().__init__(ids, ids, services=services)

        def handler_url(self, *args: object, **kwargs: object) -> str:
            return ""

        def resource_url(self, *args: object) -> str:
            return ""

        def local_resource_url(self, *args: object) -> str:
            return ""

        def publish(self, block: object, event: str, data: dict[str, Any]) -> None:
            pass

        def render_template(self, template: str, context: dict[str, Any]) -> str:
            return str(get_template(template).render(context))

        def get_policy(self, usage_id: object) -> dict[str, Any]:
            return {}

    def run(problem: bytes, submissions: list[str]) -> list[str]:
        location = UsageKey.from_string("block-v1:moe-lms+bank+run+type@problem+block@question")
        block = ProblemBlock.parse_xml(
            etree.fromstring(problem), LearnerRuntime(), ScopeIds("learner", "problem", location, location)
        )
        (answer,) = [key for key in block.lcp.get_question_answers() if "_solution_" not in key]
        said = []
        for choice in submissions:
            try:
                said.append(str(block.submit_problem({f"input_{answer}": f"choice_{choice}"})["success"]))
            except NotFoundError as exc:
                said.append(f"closed: {exc}")
        return said

    return run
