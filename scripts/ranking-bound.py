#!/usr/bin/env python3
"""How few games any schedule could need to rank the bench's pool of a placement game
(benches/hill.rs, "Whole ranking"), as a bound for the hill's matchmaking against a round robin.

The pool: PLAYERS players, neighbours STEP apart in log-strength, two-player games by
Davidson's model with nu = 1 (win, draw or loss), ranked by the model's maximum likelihood.
After N games played with the share w_p of them on pair p, the fitted differences are about
normal with covariance M(w)^-1 / N (M(w) = sum_p w_p I_p x_p x_p', the Fisher information of the
pair's game about its difference, I_p, on its contrast x_p), so the expected number of pairs
the fit orders wrongly is

    D(w, N) = sum over pairs i < j of Phi(-|s_i - s_j| / sqrt(x_ij' M(w)^-1 x_ij / N)),

and Kendall's tau-b is 1 - 2 D / pairs: tau >= 0.9 is D <= pairs / 20. The script finds the
games N a round robin needs for that (w equal on every pair), then the schedule w that needs
the fewest (exponentiated-gradient descent on D over every w, with the true strengths known),
and prints both and their ratio. An adaptive schedule learns the strengths from the games; it
cannot beat the best fixed schedule that knows them from the start, so the ratio bounds what
any matchmaking can reach on this pool (asymptotically: the normal approximation of the fit).

    python3 scripts/ranking-bound.py [STEP] [PLAYERS]
"""
import math
import sys

STEP = float(sys.argv[1]) if len(sys.argv) > 1 else 0.25
PLAYERS = int(sys.argv[2]) if len(sys.argv) > 2 else 16
strength = [k * STEP for k in range(PLAYERS)]
pairs = [(i, j) for i in range(PLAYERS) for j in range(i + 1, PLAYERS)]
target = len(pairs) / 20.0  # tau-b >= 0.9


def information(d):
    """Fisher information about d = s_i - s_j from one game under Davidson's model, nu = 1."""
    win, loss, draw = math.exp(d / 2), math.exp(-d / 2), 1.0
    z = win + loss + draw
    dz = (win - loss) / 2
    return sum(
        p / z * (score - dz / z) ** 2 for p, score in ((win, 0.5), (loss, -0.5), (draw, 0.0))
    )


info = [information(strength[i] - strength[j]) for i, j in pairs]


def inverse(m):
    """Gauss-Jordan inverse of a small symmetric positive definite matrix."""
    n = len(m)
    a = [row[:] + [float(r == c) for c in range(n)] for r, row in enumerate(m)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[pivot] = a[pivot], a[c]
        p = a[c][c]
        a[c] = [v / p for v in a[c]]
        for r in range(n):
            if r != c and a[r][c] != 0.0:
                f = a[r][c]
                a[r] = [v - f * u for v, u in zip(a[r], a[c])]
    return [row[n:] for row in a]


def covariance(w):
    """M(w)^-1 on players 1.. (player 0's strength fixed at 0: differences are what count)."""
    n = PLAYERS - 1
    m = [[0.0] * n for _ in range(n)]
    for (i, j), wp, ip in zip(pairs, w, info):
        for a, sa in ((i, 1.0), (j, -1.0)):
            for b, sb in ((i, 1.0), (j, -1.0)):
                if a > 0 and b > 0:
                    m[a - 1][b - 1] += wp * ip * sa * sb
    return inverse(m)


def contrast_variance(cov, i, j):
    def at(a, b):
        return cov[a - 1][b - 1] if a > 0 and b > 0 else 0.0

    return at(i, i) + at(j, j) - 2 * at(i, j)


def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def density(x):
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def wrong(w, games):
    """Expected pairs ordered wrongly after `games` games on the shares `w`."""
    cov = covariance(w)
    return sum(
        phi(-abs(strength[i] - strength[j]) / math.sqrt(contrast_variance(cov, i, j) / games))
        for i, j in pairs
    )


def games_needed(w):
    """The least number of games with at most `target` pairs expected wrong (bisection)."""
    low, high = 1.0, 1.0
    while wrong(w, high) > target:
        high *= 2
    while high - low > 0.5:
        mid = (low + high) / 2
        low, high = (mid, high) if wrong(w, mid) > target else (low, mid)
    return high


def gradient(w, games):
    """dD/dw_p: each wrong-pair chance's change as pair p's share grows (d M^-1 = -M^-1 dM M^-1)."""
    cov = covariance(w)
    n = PLAYERS - 1

    def row(i):
        return [0.0] * n if i == 0 else cov[i - 1]

    # For each pair q: dD/d var_q, and its contrast through the covariance, u_q = M^-1 x_q.
    terms = []
    for i, j in pairs:
        var = contrast_variance(cov, i, j)
        gap = abs(strength[i] - strength[j])
        x = gap / math.sqrt(var / games)
        # d Phi(-gap sqrt(N / var)) / d var = density(x) * x / (2 var)
        weight = density(x) * x / (2 * var)
        u = [a - b for a, b in zip(row(i), row(j))]
        terms.append((weight, u))
    grad = []
    for (i, j), ip in zip(pairs, info):
        # d var_q / d w_p = -I_p (x_p' M^-1 x_q)^2
        total = 0.0
        for weight, u in terms:
            dot = (u[i - 1] if i > 0 else 0.0) - (u[j - 1] if j > 0 else 0.0)
            total -= weight * ip * dot * dot
        grad.append(total)
    return grad


round_robin = [1.0 / len(pairs)] * len(pairs)
n_round_robin = games_needed(round_robin)
w = round_robin[:]
best = (n_round_robin, w[:])
rate = 0.5
for step in range(400):
    games = best[0]
    g = gradient(w, games)
    scale = max(abs(v) for v in g)
    w = [wp * math.exp(-rate * v / scale) for wp, v in zip(w, g)]
    total = sum(w)
    w = [wp / total for wp in w]
    if step % 10 == 9:
        n = games_needed(w)
        if n < best[0] - 0.5:
            best = (n, w[:])
        else:
            rate /= 2
            w = best[1][:]
        if rate < 1e-3:
            break
n_best, w_best = best
by_gap = {}
for (i, j), wp in zip(pairs, w_best):
    by_gap[j - i] = by_gap.get(j - i, 0.0) + wp
print(f"{PLAYERS} players {STEP} apart, a placement game of two (Davidson, nu = 1):")
print(f"  round robin: tau >= 0.9 expected after {n_round_robin:.0f} games")
print(
    f"  the best schedule knowing the strengths: {n_best:.0f} games, "
    f"{n_best / n_round_robin:.2f} of the round robin's"
)
print(
    "  its games by distance in the order: "
    + ", ".join(f"{gap}: {100 * share:.0f}%" for gap, share in sorted(by_gap.items()) if share > 0.005)
)
