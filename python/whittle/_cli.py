"""The ``whittle`` command, installed by the package: the same command as the
Rust binary, run in this process."""

import signal
import sys

from ._whittle import main as _run


def main() -> None:
    # As the native command: Ctrl-C ends the process (Python's own handler
    # would only run once the Rust code returned). A closed pipe stays an
    # error the command handles (`whittle … | head` exits 0), as natively.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(_run(["whittle", *sys.argv[1:]]))
