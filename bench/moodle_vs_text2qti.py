"""Issue 13, target 2: moe-lms's Moodle XML export beside text2qti (QTI 1.2), CPU time, same bank, one run.

    pip install -e '.[bench]'
    python bench/moodle_vs_text2qti.py            # 1,000 and 10,000 questions, median of 3 alternating runs
    python bench/moodle_vs_text2qti.py --large    # and 100,000 (text2qti takes minutes per run)

See versus.py for what is measured.
"""

from __future__ import annotations

from versus import main

if __name__ == "__main__":
    main("moodle", 15, (__doc__ or "").splitlines()[0])
