# A tight reference solution of BRUSS, the 1-D Brusselator of benchmarks/large_systems.sh (its
# bruss() function), for checking batchode's final states and for pasting into a test:
#   N = 2 M states ordered u1, v1, u2, v2, ..., uM, vM; c = (M + 1)^2 / 50;
#   du_i = A + u_i^2 v_i - 4 u_i + c (u_{i-1} - 2 u_i + u_{i+1})
#   dv_i = 3 u_i - u_i^2 v_i     + c (v_{i-1} - 2 v_i + v_{i+1})
#   u_0 = u_{M+1} = 1, v_0 = v_{M+1} = 3; u_i(0) = 1 + sin(2 pi i / (M + 1)), v_i(0) = 3; t in [0, 1].
# pi is the constant large_systems.sh's awk uses (3.14159265358979), so the initial state is the one
# its model file holds; --exact-pi uses math.pi instead.
# scipy.integrate.solve_ivp, method='Radau', rtol = 1e-12, atol = 1e-14 (--rtol/--atol change them),
# with the analytic Jacobian (dense, or sparse when N > 1000).
#
#   python3 bruss_reference.py N [A]                   (A defaults to 1.0)
#   python3 bruss_reference.py N [A] --check out.npy   batchode's --output .npy: (runs, N) or (N,);
#       for (runs, N) the row is the one whose A in linspace(0.9, 1.1, runs) is nearest to A
#       (--row K picks another). Prints the max relative error against the reference.
#   python3 bruss_reference.py N --selfcheck           the RHS against a finite-difference Jacobian
#       (numpy only, no scipy needed)
#
# Output: '# ...' comment lines, then `y[i] = value` (17 significant digits) per state, then one
# line holding the C++ initializer list {y0, y1, ...}.
import argparse
import math
import sys

import numpy as np

PI_AWK = 3.14159265358979


def bruss_setup(n, exact_pi=False):
    """(c, initial state) for N = n states."""
    if n < 2 or n % 2:
        raise SystemExit(f"N must be even and >= 2, got {n}")
    m = n // 2
    c = (m + 1) * (m + 1) / 50.0
    pi = math.pi if exact_pi else PI_AWK
    y0 = np.empty(n)
    for i in range(1, m + 1):
        y0[2 * (i - 1)] = 1.0 + math.sin(2.0 * pi * i / (m + 1))
        y0[2 * (i - 1) + 1] = 3.0
    return c, y0


def rhs(y, a, c):
    u = y[0::2]
    v = y[1::2]
    ul = np.concatenate(([1.0], u[:-1]))
    ur = np.concatenate((u[1:], [1.0]))
    vl = np.concatenate(([3.0], v[:-1]))
    vr = np.concatenate((v[1:], [3.0]))
    uuv = u * u * v
    out = np.empty_like(y)
    out[0::2] = a + uuv - 4.0 * u + c * (ul - 2.0 * u + ur)
    out[1::2] = 3.0 * u - uuv + c * (vl - 2.0 * v + vr)
    return out


def jacobian(y, c):
    """Dense d(rhs)/dy (A enters additively, so it does not appear)."""
    n = y.size
    m = n // 2
    u = y[0::2]
    v = y[1::2]
    jac = np.zeros((n, n))
    iu = np.arange(m) * 2  # rows/columns of u_i
    iv = iu + 1  # rows/columns of v_i
    jac[iu, iu] = 2.0 * u * v - 4.0 - 2.0 * c
    jac[iu, iv] = u * u
    jac[iv, iu] = 3.0 - 2.0 * u * v
    jac[iv, iv] = -u * u - 2.0 * c
    if m > 1:
        jac[iu[1:], iu[:-1]] = c  # du_i / du_{i-1}
        jac[iu[:-1], iu[1:]] = c  # du_i / du_{i+1}
        jac[iv[1:], iv[:-1]] = c
        jac[iv[:-1], iv[1:]] = c
    return jac


def selfcheck(n, a, exact_pi):
    """Compare the analytic Jacobian with central differences of rhs at a few states."""
    c, y0 = bruss_setup(n, exact_pi)
    rng = np.random.default_rng(1)
    worst = 0.0
    for y in (y0, y0 + 0.1 * rng.standard_normal(n), 2.0 * rng.random(n) + 0.5):
        jac = jacobian(y, c)
        fd = np.empty((n, n))
        for j in range(n):
            h = 1e-6 * max(1.0, abs(y[j]))
            yp = y.copy()
            ym = y.copy()
            yp[j] += h
            ym[j] -= h
            fd[:, j] = (rhs(yp, a, c) - rhs(ym, a, c)) / (2.0 * h)
        scale = np.max(np.abs(jac))
        worst = max(worst, float(np.max(np.abs(fd - jac)) / scale))
    # The RHS at the initial state, written out term by term, as a second check of rhs().
    m = n // 2
    f = rhs(y0, a, c)
    u = lambda i: 1.0 if i in (0, m + 1) else y0[2 * (i - 1)]  # noqa: E731
    v = lambda i: 3.0 if i in (0, m + 1) else y0[2 * (i - 1) + 1]  # noqa: E731
    direct = []
    for i in range(1, m + 1):
        direct.append(a + u(i) * u(i) * v(i) - 4.0 * u(i) + c * (u(i - 1) - 2.0 * u(i) + u(i + 1)))
        direct.append(3.0 * u(i) - u(i) * u(i) * v(i) + c * (v(i - 1) - 2.0 * v(i) + v(i + 1)))
    rhs_err = float(np.max(np.abs(np.array(direct) - f)) / max(1.0, np.max(np.abs(f))))
    ok = worst < 1e-7 and rhs_err < 1e-13
    print(f"selfcheck N={n} A={a}: jacobian vs finite differences max rel err {worst:.3e}, "
          f"rhs vs term-by-term {rhs_err:.3e}: {'ok' if ok else 'FAILED'}")
    return ok


def reference(n, a, rtol, atol, exact_pi):
    from scipy.integrate import solve_ivp

    c, y0 = bruss_setup(n, exact_pi)
    if n > 1000:
        from scipy.sparse import csc_matrix

        jac = lambda t, y: csc_matrix(jacobian(y, c))  # noqa: E731
    else:
        jac = lambda t, y: jacobian(y, c)  # noqa: E731
    sol = solve_ivp(lambda t, y: rhs(y, a, c), (0.0, 1.0), y0, method="Radau", rtol=rtol, atol=atol,
                    jac=jac, dense_output=False)
    if not sol.success:
        raise SystemExit(f"solve_ivp failed: {sol.message}")
    return sol, c


def main():
    ap = argparse.ArgumentParser(description="BRUSS reference final state (scipy Radau)")
    ap.add_argument("N", type=int)
    ap.add_argument("A", type=float, nargs="?", default=1.0)
    ap.add_argument("--check", metavar="FILE.npy", help="batchode final states to compare")
    ap.add_argument("--row", type=int, help="row of a (runs, N) --check file (default: nearest A)")
    ap.add_argument("--rtol", type=float, default=1e-12)
    ap.add_argument("--atol", type=float, default=1e-14)
    ap.add_argument("--exact-pi", action="store_true", help="math.pi in the initial state, not awk's")
    ap.add_argument("--selfcheck", action="store_true", help="check rhs/jacobian only (numpy)")
    args = ap.parse_args()
    n, a = args.N, args.A

    if args.selfcheck:
        return 0 if selfcheck(n, a, args.exact_pi) else 1

    sol, c = reference(n, a, args.rtol, args.atol, args.exact_pi)
    y = sol.y[:, -1]
    print(f"# BRUSS N={n} M={n // 2} c={c:.17g} A={a:.17g} t_end={sol.t[-1]:.17g} Radau rtol={args.rtol:g} "
          f"atol={args.atol:g}: {len(sol.t) - 1} steps, nfev={sol.nfev} njev={sol.njev} nlu={sol.nlu}")
    for i, value in enumerate(y):
        print(f"y[{i}] = {value:.17g}")
    print("{" + ", ".join(f"{value:.17g}" for value in y) + "}")

    if args.check:
        data = np.load(args.check)
        if data.ndim == 1:
            row, got = None, data
        elif data.ndim == 2:
            runs = data.shape[0]
            sweep = np.linspace(0.9, 1.1, runs)
            row = args.row if args.row is not None else int(np.argmin(np.abs(sweep - a)))
            if abs(sweep[row] - a) > 1e-12 * max(1.0, abs(a)):
                print(f"# warning: row {row} has A = {sweep[row]:.17g} in linspace(0.9, 1.1, {runs}), "
                      f"not {a:.17g}: pass that A (or --row) for a like-for-like check")
            got = data[row]
        else:
            raise SystemExit(f"{args.check}: expected shape (runs, N) or (N,), got {data.shape}")
        if got.shape != (n,):
            raise SystemExit(f"{args.check}: row has {got.shape[0] if got.ndim else 1} states, expected {n}")
        got = got.astype(np.float64)
        rel = np.abs(got - y) / np.maximum(np.abs(y), 1e-300)
        worst = int(np.argmax(rel))
        where = "" if row is None else f" row {row} (A = {np.linspace(0.9, 1.1, data.shape[0])[row]:.17g})"
        print(f"check {args.check}{where} ({data.dtype}): max relative error {rel[worst]:.3e} at y[{worst}] "
              f"(got {got[worst]:.17g}, reference {y[worst]:.17g}); max abs error "
              f"{np.max(np.abs(got - y)):.3e}; non-finite {int(np.sum(~np.isfinite(got)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
