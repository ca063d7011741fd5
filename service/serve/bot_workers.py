"""The bot workers of ``ginbox serve``, each started again whenever it ends."""

from __future__ import annotations

import subprocess
import sys
import time

from service.redis_process import RecentEnds, die_with_parent, describe_exit


class WorkerGaveUp(RuntimeError):
    """A bot worker of ``ginbox serve`` kept dying: too many deaths within a short time."""


class SupervisedWorker:
    """One bot worker of ``ginbox serve``, started again whenever it ends.

    ``poll()`` it often, from the thread that started it.
    Each end is said in one line on stderr, as ``RedisSupervisor`` does.
    The worker restarts at once the first time, then after a growing pause.
    ``poll`` raises ``WorkerGaveUp`` when ``max_failures`` ends fall within ``window_s`` seconds.
    """

    # poll from the thread that started it: its die-with-parent signal follows the thread that forked it.
    # A bot job a worker was playing when it died is taken up again by the sweeper of another (or the new) worker.

    def __init__(self, name: str, argv: list[str], env: dict, say=None, max_failures: int = 5,
                 window_s: float = 60.0):
        self.name = name
        self.argv = argv
        self.env = env
        self.say = say or (lambda line: print(line, file=sys.stderr, flush=True))
        self.ends = RecentEnds(max_failures, window_s)
        self.proc: subprocess.Popen | None = None
        self.start_at: float | None = None  # when a worker that ended is to be started again

    def start(self) -> "SupervisedWorker":
        # its own session: a Ctrl-C at the terminal is ginbox serve's alone, which stops it with
        # SIGTERM; and it gets SIGTERM if ginbox serve dies (even by kill -9), as on a normal stop
        self.proc = subprocess.Popen([sys.executable, "-m", "service.cli", *self.argv], env=self.env,
                                     start_new_session=True, preexec_fn=die_with_parent())
        self.start_at = None
        return self

    def poll(self) -> None:
        """Start the worker again if it has ended; ``WorkerGaveUp`` when it keeps ending."""
        if self.proc is not None and self.proc.poll() is not None:
            now = time.monotonic()
            count = self.ends.add(now)
            what = f"{self.name} (pid {self.proc.pid}) {describe_exit(self.proc.returncode)}"
            if self.ends.exhausted:
                raise WorkerGaveUp(f"the {self.name} cannot be kept running: {count} ends within "
                                   f"{self.ends.window_s:.0f} s (last: {what})")
            # at once the first time, then 0.5 s, 1 s, 2 s... while it keeps ending
            delay = 0.0 if count == 1 else min(8.0, 0.25 * 2 ** (count - 1))
            self.say(f"ginbox: {what}; starting it again{f' in {delay:g} s' if delay else ''}")
            self.proc = None
            self.start_at = now + delay
        if self.proc is None and self.start_at is not None and time.monotonic() >= self.start_at:
            self.start()

