"""Pushing banks straight into an LMS over its API: the network edge of moe-lms."""
