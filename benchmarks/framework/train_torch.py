"""The same 200 Adam steps of a looped LSA head (d = 8, n = 16, L = 10, h = 0.2, float64) in PyTorch; prints seconds,
the last loss and sum(A) in hex (bitwise determinism across runs). Run by evaluate.sh."""
import time, torch
torch.manual_seed(0); torch.use_deterministic_algorithms(True)
d, n, L, h, B = 8, 16, 10, 0.2, 64
A = (torch.randn(d, d, dtype=torch.float64) / d**0.5).requires_grad_()
V = (torch.randn(d, d, dtype=torch.float64) / d**0.5).requires_grad_()
X = torch.randn(200, B, n, d, dtype=torch.float64); X = X / X.norm(dim=-1, keepdim=True)
opt = torch.optim.Adam([A, V], lr=1e-2)
def fwd(x):
    for _ in range(L):
        M = torch.einsum("bni,bnj->bij", x, x) / n
        a = torch.einsum("bni,ij,bjk,lk->bnl", x, A, M, V)
        y = x + h * a; x = y / y.norm(dim=-1, keepdim=True)
    return x
t0 = time.time()
for i in range(200):
    opt.zero_grad(); out = fwd(X[i]); l = ((out[:, 0, 0] - X[i][:, -1, 0]) ** 2).mean(); l.backward(); opt.step()
print("torch", time.time() - t0, float(l.detach()).hex(), float(A.detach().sum()).hex())
