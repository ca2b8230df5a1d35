"""``import lsadyn.paper.handoff`` at the top of a workflow script (before its heavy imports): in a local build
with a job runner the job continues in a process forked from one that has those imports done, else here
(see :mod:`lsadyn.paper.jobrunner`). An import, not a call, so that the script's other imports stay at the top."""

from .jobrunner import hand_off

hand_off()
