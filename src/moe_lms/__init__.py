"""moe-lms: multiple-choice question banks as code, delivered to Moodle, QTI 2.1 and Canvas."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("moe-lms")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
