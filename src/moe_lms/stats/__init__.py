"""Item analysis from what learners did: results read from an LMS, mapped back to the bank's ids, then computed.

Readers (``plain``, ``moodle``, ``qti``, ``canvas``) turn a results file into :class:`results.Attempt`\\ s, each
response mapped to a question and choice id, refusing what they cannot map with its file and row. ``compute`` is a
pure function of the bank and the attempts; ``json_out``, ``table`` and ``html`` show its result. Files and HTTP
stay at the edge (``cli/stats.py``, ``lms/``), as for ``push``.
"""
