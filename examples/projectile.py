"""A projectile with air drag, simulated step by step until it lands, and
its parameters optimised through the simulation by gradient descent.

    python examples/projectile.py

The simulation is a `while` loop whose number of steps depends on the
parameters; the landing point is interpolated between the last two steps,
so the range is a smooth function of them. zygote_py differentiates the
loop as written: the pullback replays it backwards, over as many steps as
the forward took. Two problems are solved with the gradient:

1. the launch angle that throws farthest (with drag it is below 45°);
2. the drag coefficient, recovered from an observed range.
"""
import math

import zygote_py as zpy

GRAVITY = 9.81


def flight_range(angle, speed, drag, dt=0.01):
    """Where a ball launched at ``angle`` (radians) and ``speed`` (m/s)
    lands, with quadratic drag ``drag`` (1/m), by semi-implicit Euler
    steps of ``dt`` seconds."""
    x, y = 0.0, 0.0
    vx = speed * math.cos(angle)
    vy = speed * math.sin(angle)
    while True:
        x_before, y_before = x, y
        v = math.sqrt(vx * vx + vy * vy)
        vx = vx - dt * drag * v * vx
        vy = vy - dt * (GRAVITY + drag * v * vy)
        x = x + dt * vx
        y = y + dt * vy
        if y < 0:
            break
    return x_before + (x - x_before) * y_before / (y_before - y)


def best_angle(speed, drag, steps=40, lr=0.002):
    """Gradient ascent on the range over the launch angle."""
    angle = math.radians(30.0)
    history = []
    for _ in range(steps):
        r, (dangle, _, _) = zpy.value_and_gradient(flight_range, angle, speed, drag)
        history.append(r)
        angle += lr * dangle
    return angle, history


def fit_drag(observed, angle, speed, steps=30):
    """The drag coefficient that makes the range ``observed``: Gauss-Newton
    on the squared miss, each step from the gradient of the range."""
    drag = 0.0
    history = []
    for _ in range(steps):
        r, (_, _, ddrag) = zpy.value_and_gradient(flight_range, angle, speed, drag)
        history.append(abs(r - observed))
        drag -= (r - observed) / ddrag
    return drag, history


def main(speed=30.0, drag=0.02, verbose=True):
    # The gradient without drag, against the closed form R = v² sin(2θ) / g.
    angle = math.radians(35.0)
    r, (dangle, dspeed, ddrag) = zpy.value_and_gradient(flight_range, angle, speed, 0.0)
    exact = {"range": speed ** 2 * math.sin(2 * angle) / GRAVITY,
             "dangle": 2 * speed ** 2 * math.cos(2 * angle) / GRAVITY,
             "dspeed": 2 * speed * math.sin(2 * angle) / GRAVITY}
    h = 1e-6
    numeric_dangle = (flight_range(angle + h, speed, 0.0) - flight_range(angle - h, speed, 0.0)) / (2 * h)
    if verbose:
        print(f"no drag, 35°, {speed} m/s (the Euler steps make the simulation differ "
              f"slightly from the closed form):")
        print(f"  range      {r:10.4f}   closed form {exact['range']:10.4f}")
        print(f"  d/d angle  {dangle:10.4f}   closed form {exact['dangle']:10.4f}   "
              f"central differences {numeric_dangle:10.4f}")
        print(f"  d/d speed  {dspeed:10.4f}   closed form {exact['dspeed']:10.4f}")
        print(f"  d/d drag   {ddrag:10.4f}   (drag shortens the flight)")

    angle_opt, angle_history = best_angle(speed, drag)
    if verbose:
        print(f"\nbest launch angle with drag {drag}: {math.degrees(angle_opt):.2f}°, "
              f"range {angle_history[0]:.3f} m at 30° -> {angle_history[-1]:.3f} m")

    true_drag = 0.05
    observed = flight_range(math.radians(40.0), speed, true_drag)
    drag_fit, drag_history = fit_drag(observed, math.radians(40.0), speed, steps=8)
    if verbose:
        print(f"\nobserved range {observed:.4f} m at 40°: drag recovered "
              f"{drag_fit:.6f} (true {true_drag}); miss per step "
              + ", ".join(f"{m:.2g}" for m in drag_history))
    return {"range": r, "dangle": dangle, "dspeed": dspeed, "ddrag": ddrag, "exact": exact,
            "numeric_dangle": numeric_dangle, "best_angle": angle_opt,
            "angle_history": angle_history, "drag_fit": drag_fit, "true_drag": true_drag,
            "drag_history": drag_history}


if __name__ == "__main__":
    main()
