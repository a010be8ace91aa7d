"""The shapes of the Canvas answers moe-lms reads, as pydantic models: every answer is checked against one.

Only the fields moe-lms uses are declared; anything else Canvas sends is ignored. A 200 whose JSON does not fit
(an id that is a list, a quiz list that is an object, a proxy's HTML page) is an error naming the request, not a
traceback deep in the push. Shapes from ../shared/reference/canvas-api.md (cl:lib/api/v1/quiz.rb,
cl:lib/api/v1/quiz_question.rb, the New Quizzes docs, cl:lib/api/v1/content_migration.rb, progress_controller.rb).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

_ID = re.compile(r"[A-Za-z0-9_~-]{1,64}")


def _canvas_id(value: Any) -> str:
    """Classic ids are numbers, New Quizzes ids strings of digits: both become a non-empty string."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError("an id must be a number or a string")
    text = str(value)
    if not _ID.fullmatch(text):
        raise ValueError("an id must be a short string of letters and digits")
    return text


CanvasId = Annotated[str, BeforeValidator(_canvas_id)]


class Shape(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Created(Shape):
    """Any object moe-lms made or changed: all it needs back is the id."""

    id: CanvasId


class ClassicQuiz(Shape):
    id: CanvasId
    description: str | None = None
    published: bool = False

    @property
    def marker_text(self) -> str | None:
        return self.description


class NewQuiz(Shape):
    id: CanvasId
    instructions: str | None = None
    published: bool = False

    @property
    def marker_text(self) -> str | None:
        return self.instructions


class ClassicQuestion(Shape):
    id: CanvasId
    position: int | None = None  # null for questions made in the UI (canvas-lms issue #1307)
    question_name: str | None = None
    quiz_group_id: CanvasId | None = None  # the question group it is in (cl:lib/api/v1/quiz_question.rb)

    @property
    def name(self) -> str | None:
        return self.question_name


class QuizGroup(Shape):
    """A classic quiz's question group (cl:app/controllers/quizzes/quiz_groups_controller.rb, @model QuizGroup)."""

    id: CanvasId
    name: str | None = None
    pick_count: int | None = None
    question_points: float | None = None
    position: int | None = None


class CreatedGroups(Shape):
    """What creating a question group answers: ``{"quiz_groups": [QuizGroup]}`` (201)."""

    quiz_groups: list[Created] = Field(min_length=1)

    @property
    def id(self) -> str:
        return self.quiz_groups[0].id


class ItemEntry(Shape):
    title: str | None = None


class NewQuizItem(Shape):
    id: CanvasId
    position: int | None = None
    entry: ItemEntry | None = None  # stimuli and bank entries have other entries; their title is simply absent

    @property
    def name(self) -> str | None:
        return self.entry.title if self.entry is not None else None


class PreAttachment(Shape):
    upload_url: str | None = None
    upload_params: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    file_param: str | None = None
    error: bool = False
    message: str | None = None


class Migration(Shape):
    id: CanvasId
    workflow_state: str | None = None
    progress_url: str | None = None
    migration_issues_url: str | None = None
    migration_issues_count: int = 0
    pre_attachment: PreAttachment | None = None


class Progress(Shape):
    workflow_state: str


class MigrationIssue(Shape):
    description: str | None = None
    error_message: str | None = None


class Folder(Shape):
    """A course folder (cl:app/controllers/folders_controller.rb, lib/api/v1/folders.rb)."""

    id: CanvasId
    full_name: str | None = None


class CourseFile(Shape):
    """A file in a folder's list (cl:lib/api/v1/attachment.rb): its name as given on upload, and its size."""

    id: CanvasId
    display_name: str = ""
    size: int | None = None
