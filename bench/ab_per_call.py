"""A/B of W1/W1v/W2 per-call (arignote, default and trust_input) for one source tree."""
import os, sys, statistics, time
for v in ("OMP_NUM_THREADS","OPENBLAS_NUM_THREADS","MKL_NUM_THREADS"):
    os.environ[v]="1"
tree = sys.argv[1]
sys.path.insert(0, tree)
import numpy as np
import arignote, arignote.tensor as pt
LOG_2PI = float(np.log(2*np.pi))
def w1(shape):
    t = pt.TensorType("float64", (None,)*len(shape)); a,b = t("a"), t("b")
    out = a*b + pt.exp(a) - pt.log(b)
    f = arignote.function([a,b], out); g = arignote.function([a,b], out, trust_input=True)
    av = np.full(shape, 0.5); bv = np.full(shape, 1.5)
    return (lambda: f(av,bv)), (lambda: g(av,bv))
def w2():
    rng = np.random.default_rng(0); y = rng.normal(size=100)
    mu, ls = pt.dscalar("mu"), pt.dscalar("log_sigma")
    data = pt.constant(y, name="y")
    logp = (-0.5*((data-mu)/pt.exp(ls))**2 - ls - 0.5*LOG_2PI).sum()
    outs = [logp, *arignote.grad(logp, [mu, ls])]
    f = arignote.function([mu, ls], outs); g = arignote.function([mu, ls], outs, trust_input=True)
    m, s = np.array(0.3), np.array(-0.2)
    return (lambda: f(m,s)), (lambda: g(m,s))
def best(call, n, rounds):
    for _ in range(50): call()
    xs=[]
    for _ in range(rounds):
        t=time.perf_counter()
        for _ in range(n): call()
        xs.append((time.perf_counter()-t)/n*1e6)
    xs.sort()
    return statistics.median(xs), statistics.mean(xs[:max(1, rounds//10)])
res = {}
for name, (f, g) in {"W1": w1(()), "W1v": w1((10,)), "W2": w2()}.items():
    res[name] = best(f, 200, 300); res[name+" trust"] = best(g, 200, 300)
print(tree, " ".join(f"{k}={v[0]:.2f}/{v[1]:.2f}" for k,v in res.items()))
