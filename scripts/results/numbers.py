"""The number formats of the generated tables (scripts/figures.py). Standard library only."""


def sig(x, digits=3):
    """x to `digits` significant digits, thousands separated; integers from 1,000 up."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 10 ** (digits - 1):
        return f"{x:,.0f}"
    decimals = digits - 1 - int(_floor_log10(a))
    return f"{x:,.{decimals}f}"


def _floor_log10(a):
    e = 0
    while a >= 10:
        a /= 10
        e += 1
    while a < 1:
        a *= 10
        e -= 1
    return e


def ms(x):
    return "–" if x is None else f"{sig(x)} ms"


def times(x):
    """A ratio: 1,009×, 56×, 7.9×."""
    if x is None:
        return "–"
    if x >= 10:
        return f"{x:,.0f}×"
    if x >= 1:
        return f"{x:.1f}×"
    return f"{sig(x, 2)}×"


def count(n):
    return f"{int(round(n)):,}"


def big(n):
    """A count in M or G: 71.8 M, 4,542 M."""
    if n >= 1e6:
        return f"{sig(n / 1e6)} M"
    if n >= 1e3:
        return f"{sig(n / 1e3)} k"
    return count(n)


def rate(per_s):
    """Nodes a second: 287 G/s, 1.61 T/s."""
    for scale, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if per_s >= scale:
            return f"{sig(per_s / scale)} {unit}/s"
    return f"{sig(per_s)}/s"

