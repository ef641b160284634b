"""python3 -m topotune.profile: the documented command, kept as an alias of topotune.profiler.

The profiler lives in topotune.profiler so that no module of this package is named like the
standard library's `profile` (which cProfile imports): a checkout's python/topotune on
sys.path, or a script run from that folder, would otherwise shadow it."""
import sys

from topotune.profiler import *  # noqa: F401,F403  (the same public names)
from topotune.profiler import main

if __name__ == "__main__":
    sys.exit(main())
