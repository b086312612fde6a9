"""CIEDE2000, the CIE's colour difference, written plainly in Python (a
long function with branches, trigonometry and degrees, after Sharma, Wu
and Dalal 2005), differentiated with respect to a colour; then used to fit
a colour to a target by gradient descent through the sRGB -> Lab
conversion, which branches too.

    python examples/ciede2000.py

This is the example that "Sense & Sensitivities" (Innes et al. 2019) shows
with Colors.jl: code written with no thought of differentiation, hue
angles wrapped by `if`s, differentiated as it stands.

As written, the function has no gradient at a grey (a = b = 0): the chroma
there is sqrt(0), whose derivative is infinite, and the chain rule
multiplies it by zero, giving nan (JAX and PyTorch give nan there too). The
fit below never meets an exact grey.
"""
import math

import zygote_py as zpy


def ciede2000(lab1, lab2):
    """The CIEDE2000 colour difference of two CIELAB colours (kL = kC =
    kH = 1)."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    C1 = math.sqrt(a1 * a1 + b1 * b1)
    C2 = math.sqrt(a2 * a2 + b2 * b2)
    C_mean = (C1 + C2) / 2
    G = 0.5 * (1 - math.sqrt(C_mean ** 7 / (C_mean ** 7 + 25.0 ** 7)))
    a1p = (1 + G) * a1
    a2p = (1 + G) * a2
    C1p = math.sqrt(a1p * a1p + b1 * b1)
    C2p = math.sqrt(a2p * a2p + b2 * b2)
    h1p = hue_angle(b1, a1p)
    h2p = hue_angle(b2, a2p)

    dLp = L2 - L1
    dCp = C2p - C1p
    if C1p * C2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    elif h2p - h1p > 180:
        dhp = h2p - h1p - 360
    else:
        dhp = h2p - h1p + 360
    dHp = 2 * math.sqrt(C1p * C2p) * math.sin(math.radians(dhp / 2))

    Lp_mean = (L1 + L2) / 2
    Cp_mean = (C1p + C2p) / 2
    if C1p * C2p == 0:
        hp_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_mean = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hp_mean = (h1p + h2p + 360) / 2
    else:
        hp_mean = (h1p + h2p - 360) / 2

    T = (1 - 0.17 * math.cos(math.radians(hp_mean - 30))
         + 0.24 * math.cos(math.radians(2 * hp_mean))
         + 0.32 * math.cos(math.radians(3 * hp_mean + 6))
         - 0.20 * math.cos(math.radians(4 * hp_mean - 63)))
    d_theta = 30 * math.exp(-(((hp_mean - 275) / 25) ** 2))
    R_C = 2 * math.sqrt(Cp_mean ** 7 / (Cp_mean ** 7 + 25.0 ** 7))
    S_L = 1 + 0.015 * (Lp_mean - 50) ** 2 / math.sqrt(20 + (Lp_mean - 50) ** 2)
    S_C = 1 + 0.045 * Cp_mean
    S_H = 1 + 0.015 * Cp_mean * T
    R_T = -math.sin(math.radians(2 * d_theta)) * R_C

    dL = dLp / S_L
    dC = dCp / S_C
    dH = dHp / S_H
    return math.sqrt(dL * dL + dC * dC + dH * dH + R_T * dC * dH)


def hue_angle(b, a):
    """The hue in degrees, in [0, 360); 0 for a grey."""
    if a == 0 and b == 0:
        return 0.0
    h = math.degrees(math.atan2(b, a))
    if h < 0:
        h += 360
    return h


def srgb_to_lab(rgb):
    """An sRGB colour (components in [0, 1]) in CIELAB, D65 white."""
    r, g, b = [linear(c) for c in rgb]
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
    fx, fy, fz = lab_f(x), lab_f(y), lab_f(z)
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def linear(c):
    """sRGB's transfer function undone: a linear light intensity."""
    if c <= 0.04045:
        return c / 12.92
    return ((c + 0.055) / 1.055) ** 2.4


def lab_f(t):
    delta = 6 / 29
    if t > delta ** 3:
        return t ** (1 / 3)
    return t / (3 * delta * delta) + 4 / 29


def distance_to(rgb, target_lab):
    return ciede2000(srgb_to_lab(rgb), target_lab)


def fit(target_lab, start, steps=200, lr=0.02):
    """The sRGB colour nearest to ``target_lab`` in CIEDE2000, by gradient
    descent with Adam's step sizes, kept inside the sRGB cube."""
    rgb = list(start)
    m = [0.0, 0.0, 0.0]
    v = [0.0, 0.0, 0.0]
    history = []
    for t in range(1, steps + 1):
        d, (grad, _) = zpy.value_and_gradient(distance_to, tuple(rgb), target_lab)
        history.append(d)
        for i in range(3):
            m[i] = 0.9 * m[i] + 0.1 * grad[i]
            v[i] = 0.999 * v[i] + 0.001 * grad[i] ** 2
            rate = lr * 0.97 ** t       # a decaying step: the minimum is a cone's tip
            step = rate * (m[i] / (1 - 0.9 ** t)) / (math.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-12)
            rgb[i] = min(1.0, max(0.0, rgb[i] - step))
    history.append(distance_to(tuple(rgb), target_lab))
    return tuple(rgb), history


def main(steps=200, verbose=True):
    # Gradient with respect to the first colour, against central differences.
    lab1, lab2 = (50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)
    d, (g1, g2) = zpy.value_and_gradient(ciede2000, lab1, lab2)
    h = 1e-6
    numeric = tuple(
        (ciede2000(tuple(c + h * (j == i) for j, c in enumerate(lab1)), lab2)
         - ciede2000(tuple(c - h * (j == i) for j, c in enumerate(lab1)), lab2)) / (2 * h)
        for i in range(3))
    if verbose:
        print(f"CIEDE2000({lab1}, {lab2}) = {d:.4f}  (Sharma et al.'s table: 2.0425)")
        print(f"gradient w.r.t. the first colour: ({g1[0]:.6f}, {g1[1]:.6f}, {g1[2]:.6f})")
        print(f"central differences:              ({numeric[0]:.6f}, {numeric[1]:.6f}, {numeric[2]:.6f})")

    # Fit: the sRGB colour whose Lab is nearest a target, from grey.
    target_rgb = (0.85, 0.35, 0.55)
    target_lab = srgb_to_lab(target_rgb)
    rgb, history = fit(target_lab, (0.5, 0.5, 0.5), steps)
    if verbose:
        print(f"\nfitting sRGB to Lab {tuple(round(c, 3) for c in target_lab)} from grey:")
        for t in range(0, len(history), max(1, len(history) // 5)):
            print(f"  step {t:4d}: CIEDE2000 = {history[t]:.4f}")
        print(f"  result {tuple(round(c, 4) for c in rgb)}, distance {history[-1]:.5f} "
              f"(the colour that made the target: {target_rgb})")
    return {"difference": d, "gradient": g1, "numeric": numeric, "history": history,
            "rgb": rgb, "target_rgb": target_rgb}


if __name__ == "__main__":
    main()
