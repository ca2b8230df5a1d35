"""Job processes of a local lsadyn build: hand the job to the job runner's server while Python starts, before
Snakemake's script preamble imports snakemake (~0.1 s of CPU per job); :mod:`lsadyn.paper.jobrunner` puts this
directory first on the jobs' PYTHONPATH while its server runs. Any other process (not a Snakemake job script, no
server, the runner switched off) goes on as without this file: the next ``sitecustomize`` on the path, if any, is
imported as Python would have imported it."""


def _startup() -> None:
    import os
    import sys

    argv = getattr(sys, "argv", None) or [""]
    # a cheap look first (any other process, e.g. the server itself, imports nothing of lsadyn here)
    if os.environ.get("LSADYN_JOB_RUNNER_SOCKET") and ".snakemake" in argv[0]:
        try:
            from lsadyn.paper.jobrunner import hand_off_at_startup
        except ImportError:
            pass
        else:
            hand_off_at_startup()  # returns unless the job ran in the server's child (then this process exits)
    # not handed off: import the sitecustomize this one shadows, if there is one
    here = os.path.dirname(os.path.abspath(__file__))
    mine = sys.modules.pop("sitecustomize", None)
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    try:
        import sitecustomize  # noqa: F401 (the next one on the path)
    except ImportError as exc:
        if exc.name != "sitecustomize":
            raise
        if mine is not None:
            sys.modules["sitecustomize"] = mine
    finally:
        sys.path[:] = saved


_startup()
