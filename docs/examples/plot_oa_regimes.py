"""
The four regimes in the Ott–Antonsen reduction
==============================================

In d = 2, linear attention on near-uniform tokens reduces to one complex number, the order parameter
:math:`R_2(t)` (the OA manifold). For four (A, V) pairs, one per regime, we integrate the OA ODE from the
near-uniform starts :func:`lsadyn.predict_regime` uses, plot :math:`|R_2|(t)` and title each panel with the
regime :func:`lsadyn.predict_regime` returns.
"""

import matplotlib.pyplot as plt
import numpy as np

import lsadyn

J = np.array([[0.0, -1.0], [1.0, 0.0]])
points = {
    "V = I (claim 1)": (np.eye(2), np.eye(2)),
    "V = I + J (claim 3)": (np.eye(2), np.eye(2) + J),
    "hidden Hamiltonian (claim 4)": (np.eye(2), np.array([[0.2, 1.0], [-1.0, -0.2]])),
    "A = -I, V = I (interior)": (-np.eye(2), np.eye(2)),
}
t = np.linspace(0.0, 40.0, 2000)
fig, axes = plt.subplots(1, 4, figsize=(13, 3.2), sharey=True)
for ax, (name, (A, V)) in zip(axes, points.items()):
    result = lsadyn.predict_regime(A, V)
    R2 = lsadyn.integrate_oa(A, V, 1.0, lsadyn.oa_start_points()[:3], t)
    ax.plot(t, np.abs(R2))
    ax.set_title(f"{name}\n{result.regime}", fontsize=9)
    ax.set_xlabel("t")
    print(f"{name}: {result.regime}")
axes[0].set_ylabel("|R2|")
fig.tight_layout()
plt.show()
