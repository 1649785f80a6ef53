"""The fault campaign: bot processes killed with SIGKILL at random moments, and two processes
on the same channels at once, checked against the database afterwards.

- :mod:`tests.faults.player`: the child process (a :class:`bot.service.GameService` kept busy
  through its public commands, every acknowledged command appended to an ack log);
- :mod:`tests.faults.acklog`: the ack log's lines;
- :mod:`tests.faults.checker`: what the database must hold, given the ack logs;
- :mod:`tests.faults.campaign`: the campaigns (``python -m tests.faults.campaign --help``).
"""
