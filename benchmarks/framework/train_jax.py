"""The same 200 Adam steps of a looped LSA head (d = 8, n = 16, L = 10, h = 0.2, float64) in JAX; prints seconds, the
last loss and sum(A) in hex (bitwise determinism across runs). Run by evaluate.sh."""
import time, jax, jax.numpy as jnp, optax, numpy as np
jax.config.update("jax_enable_x64", True)
d, n, L, h, B = 8, 16, 10, 0.2, 64
key = jax.random.PRNGKey(0)
k1, k2, k3 = jax.random.split(key, 3)
params = {"A": jax.random.normal(k1, (d, d)) / d**0.5, "V": jax.random.normal(k2, (d, d)) / d**0.5}
X = jax.random.normal(k3, (200, B, n, d)); X = X / jnp.linalg.norm(X, axis=-1, keepdims=True)
def fwd(p, x):
    for _ in range(L):
        M = jnp.einsum("bni,bnj->bij", x, x) / n
        a = jnp.einsum("bni,ij,bjk,lk->bnl", x, p["A"], M, p["V"])
        y = x + h * a; x = y / jnp.linalg.norm(y, axis=-1, keepdims=True)
    return x
def loss(p, x):  # toy: predict the last token's first coordinate after the loop from the first token's
    out = fwd(p, x)
    return jnp.mean((out[:, 0, 0] - x[:, -1, 0]) ** 2)
opt = optax.adam(1e-2); st = opt.init(params)
@jax.jit
def step(p, st, x):
    l, g = jax.value_and_grad(loss)(p, x)
    u, st = opt.update(g, st, p)
    return optax.apply_updates(p, u), st, l
t0 = time.time()
for i in range(200):
    params, st, l = step(params, st, X[i])
l.block_until_ready()
print("jax", time.time() - t0, float(l).hex(), float(params["A"].sum()).hex())
