"""
Tokens against the reduction
============================

The same question asked of n = 200 tokens from i.i.d. uniform angles (:func:`lsadyn.simulate_regime`) and of
the OA reduction (:func:`lsadyn.predict_regime`), for the rotating-cluster point A = I, V = I + J. The plot
shows the rotation of :math:`\\arg R_2` that both classify; the rate on :math:`|R_2| = 1` is 2βμ√σ = 2.
"""

import matplotlib.pyplot as plt
import numpy as np

import lsadyn

A = np.eye(2)
V = np.array([[1.0, -1.0], [1.0, 1.0]])
oa = lsadyn.predict_regime(A, V)
tokens = lsadyn.simulate_regime(A, V, n=200, seed=0)
print(f"OA: {oa.regime}, rotation rate {oa.arg_R2_rate:.4f}; tokens: {tokens.regime}, "
      f"rotation rate {tokens.arg_R2_rate:.4f}")

t = np.linspace(0.0, 20.0, 2000)
R2 = lsadyn.integrate_oa(A, V, 1.0, lsadyn.oa_start_points()[:1], t)[:, 0]
fig, ax = plt.subplots(1, 2, figsize=(9, 3.2))
ax[0].plot(t, np.abs(R2))
ax[0].set(xlabel="t", ylabel="|R2|", title="OA, from a near-uniform start")
ax[1].plot(t, np.unwrap(np.angle(R2)))
ax[1].set(xlabel="t", ylabel="arg R2 (unwrapped)",
          title=f"rates: OA {oa.arg_R2_rate:.3f}, tokens {tokens.arg_R2_rate:.3f}")
fig.tight_layout()
plt.show()
