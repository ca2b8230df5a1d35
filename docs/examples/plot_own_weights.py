"""
Your own A, V: the regime, R₂(t), the tokens' trajectories and a movie
======================================================================

A recipe for any (A, V, β) of your own, here a random pair in d = 2 (use your model's head instead:
:func:`lsadyn.weights.read_head` gives its A, V and β, see *Your own weights*). In four steps:

1. the certified long-time regime, from the OA flow and from n tokens;
2. R₂(t) = (1/n) Σ_k e^{2iθ_k} of the tokens beside the OA flow's, from the same R₂(0);
3. the tokens' trajectories θ_k(t);
4. a movie of the tokens on the circle (a GIF written with matplotlib's Pillow writer).

Time is in units of τ = 1/(β‖A‖₂‖V‖₂), as the regime calls count it.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.animation import FuncAnimation, PillowWriter

import lsadyn
from lsadyn.api import time_scale
from lsadyn.fields.attention import field_for

rng = np.random.default_rng(7)
A, V = rng.standard_normal((2, 2, 2)) / np.sqrt(2)  # or: head = lsadyn.weights.read_head("model.safetensors")
beta = 1.0
tau = time_scale(A, V, beta)

# %%
# 1. The regime, certified: the attractor that was found and what was checked.
oa = lsadyn.predict_regime(A, V, beta)
tokens = lsadyn.simulate_regime(A, V, beta, n=128, seed=0)
print("OA:", oa.regime, "|", oa.details["checked"][:120])
print("128 tokens:", tokens.regime, "|", (tokens.details.get("checked") or tokens.details["reason"])[:120])

# %%
# 2. and 3. R₂(t) and the trajectories: integrate the tokens on the circle with an observer that keeps their
# angles, and the OA flow from the tokens' own R₂(0).
X0 = lsadyn.uniform_sphere(128, 2, 0)
t = np.linspace(0.0, 60.0 * tau, 241)
field = field_for("lsa", 2)
run = lsadyn.integrate_sphere(field, X0, t, lsadyn.attention(A, V, beta),
                              observer=lambda X: np.arctan2(X[:, 1], X[:, 0]))
theta = run.y  # (times, tokens)
R2_tokens = np.exp(2j * theta).mean(axis=1)
R2_oa = lsadyn.integrate_oa(A, V, beta, R2_tokens[:1], t)[:, 0]

fig, ax = plt.subplots(1, 2, figsize=(10, 3.4))
ax[0].plot(t / tau, np.abs(R2_tokens), label="128 tokens")
ax[0].plot(t / tau, np.abs(R2_oa), "--", label="OA flow from the same R₂(0)")
ax[0].set(xlabel="t / τ", ylabel="|R₂|", title=f"OA: {oa.regime}; tokens: {tokens.regime}")
ax[0].legend(fontsize=8)
ax[1].plot(t / tau, np.unwrap(theta, axis=0)[:, ::4], lw=0.6, color="0.3")
ax[1].set(xlabel="t / τ", ylabel="θ_k (unwrapped), every 4th token", title="trajectories")
fig.tight_layout()
plt.show()

# %%
# 4. A movie: one frame per output time, tokens on the unit circle and the axis of R₂ (arg R₂ / 2).
fig, ax = plt.subplots(figsize=(3.2, 3.2))
ax.set(xlim=(-1.15, 1.15), ylim=(-1.15, 1.15), aspect="equal", xticks=[], yticks=[])
ax.add_patch(plt.Circle((0, 0), 1, fill=False, color="0.7"))
dots, = ax.plot([], [], "o", ms=3)
axis, = ax.plot([], [], "-", color="C3")


def frame(i):
    dots.set_data(np.cos(theta[i]), np.sin(theta[i]))
    phi = np.angle(R2_tokens[i]) / 2
    r = np.abs(R2_tokens[i])
    axis.set_data([-r * np.cos(phi), r * np.cos(phi)], [-r * np.sin(phi), r * np.sin(phi)])
    ax.set_title(f"t = {t[i] / tau:.0f} τ, |R₂| = {r:.2f}", fontsize=8)
    return dots, axis


movie = FuncAnimation(fig, frame, frames=range(0, len(t), 4), blit=True)
out = Path(tempfile.mkdtemp()) / "own_weights.gif"  # your own path here
movie.save(out, writer=PillowWriter(fps=12))
plt.close(fig)
print(f"wrote {out.name}, {out.stat().st_size // 1000} kB")
