"""``gpu-advisor serve --http`` with tests/slack/faulty_answers.py injected through the seam.

Usage (from the repository root, so that worker processes can import the injected function):
``python -m tests.slack.serve_faulty PORT``, with the same environment as ``gpu-advisor serve``.
"""

from __future__ import annotations

import argparse
import sys

if __name__ == "__main__":
    from bot.slack.commands import cmd_serve
    from tests.slack.faulty_answers import faulty_answer

    sys.exit(cmd_serve(argparse.Namespace(socket=False, http=True, port=int(sys.argv[1])), answer_fn=faulty_answer))
