"""moe-lms: multiple-choice question banks as code, delivered to Moodle, Canvas, Open edX, Common Cartridge and QTI."""

# The one place the version is written (pyproject.toml reads it from here): importlib.metadata would cost every
# command a third of its start-up.
__version__ = "0.1.0"
