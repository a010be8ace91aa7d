"""moe-lms: multiple-choice question banks as code, delivered to Moodle, QTI 2.1 and Canvas."""

# The one place the version is written (pyproject.toml reads it from here): importlib.metadata would cost every
# command a third of its start-up.
__version__ = "0.1.0"
