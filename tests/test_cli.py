import json
import subprocess
import sys

import pytest

I = "[[1,0],[0,1]]"


def run(*args):
    """``python -m lsadyn.cli ARGS`` in its own process."""
    return subprocess.run([sys.executable, "-m", "lsadyn.cli", *args], capture_output=True, text=True, timeout=300,
                          check=False)


def test_json_output():
    r = run("regime", "--A", I, "--V", I, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"regime", "abs_R2", "arg_R2_rate", "period", "method"} <= out.keys()
    assert out["regime"] == "cluster_converge" and out["method"] == "oa"


def test_particles_and_ws_methods(lsadyn_cli):
    # in process (conftest.lsadyn_cli runs the same main()); test_json_output starts `python -m lsadyn.cli`
    for method in ("ws", "particles"):
        r = lsadyn_cli("regime", "--A", I, "--V", "[[1,-1],[1,1]]", "--method", method, "--n", "200", "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["regime"] == "cluster_rotate"


@pytest.mark.parametrize(
    "args,name",
    [
        (["--A", "[[1,0],[0,1],[1,1]]", "--V", I], "--A"),  # wrong shape / non-square
        (["--A", I, "--V", "[[1,0,0],[0,1,0]]"], "--V"),  # non-square
        (["--A", I, "--V", "[[1,0,0],[0,1,0],[0,0,1]]"], "--V"),  # size mismatch
        (["--A", "[[1,0],[0,x]]", "--V", I], "--A"),  # not JSON
        (["--A", '[[1,"a"],[0,1]]', "--V", I], "--A"),  # non-numeric
        (["--A", "[[1,0],[0,NaN]]", "--V", I], "--A"),
        (["--A", I, "--V", "[[1,0],[0,Infinity]]"], "--V"),
        (["--A", I, "--V", I, "--beta", "0"], "--beta"),
        (["--A", I, "--V", I, "--beta", "-2"], "--beta"),
        (["--A", I, "--V", I, "--beta", "abc"], "--beta"),
        (["--A", I, "--V", I, "--method", "ws", "--n", "1"], "--n"),
        (["--A", I, "--V", I, "--method", "particles", "--n", "1.5"], "--n"),
        (["--A", I, "--V", I, "--method", "rk9"], "--method"),
        (["--V", I], "--A"),
    ],
)
def test_bad_input_exit_2_one_line(lsadyn_cli, args, name):
    r = lsadyn_cli("regime", *args)  # in process: test_json_output runs `python -m lsadyn.cli`
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert name in lines[0] and "Traceback" not in r.stderr
