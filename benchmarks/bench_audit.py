"""Benchmark: `factline audit` on a file of 10,000 tau-bench-shaped trajectories - time and peak memory (it streams).

Each generated trajectory has the shape of the real tau-bench airline ones (a long system policy, user turns,
get_reservation_details / cancel_reservation / update_reservation_flights calls with JSON results, some of
them errors, and the assistant's claims; a quarter claim a cancellation with no successful call), about 20 KB.
The audit runs as a process (`python -m pipeline.cli audit FILE --json`, output to /dev/null); its peak
resident memory is the child's ru_maxrss. For scale, the peak of a process that only json.load()s the same
file is measured too.

    python -m benchmarks.bench_audit [--short] [--trajectories N]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, progress, save, table

POLICY = ("# Airline agent policy\n" + "The current time is 2024-05-15 15:00:00 EST. As an airline agent, you can help "
          "users book, modify, or cancel flight reservations. Before taking consequential actions you must obtain "
          "explicit confirmation (yes) from the user. " * 40)


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def trajectory(n: int, rng: random.Random) -> dict[str, Any]:
    code = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(6))
    user = f"user_{n}_{rng.randint(1000, 9999)}"
    reservation = {"reservation_id": code, "user_id": user, "origin": "JFK", "destination": "SEA", "cabin": "economy",
                   "flights": [{"flight_number": f"HAT{rng.randint(100, 299)}", "date": "2024-05-20",
                                "price": rng.randint(90, 900)} for _ in range(2)],
                   "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
                   "payment_history": [{"payment_id": f"credit_card_{rng.randint(10**6, 10**7)}", "amount": 305}],
                   "created_at": "2024-05-14T09:00:00", "total_baggages": 1, "insurance": "no"}
    kind = n % 4  # 0 honest cancel, 1 honest update, 2 claim after a failed cancel, 3 claim with no cancel call
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": POLICY},
        {"role": "user", "content": f"Hi, I want to change or cancel my reservation {code}. My user id is {user}."},
        _call(f"c{n}a", "get_reservation_details", reservation_id=code),
        {"role": "tool", "tool_call_id": f"c{n}a", "name": "get_reservation_details", "content": json.dumps(reservation)},
        {"role": "assistant", "content": f"I found reservation {code} from JFK to SEA. Do you confirm (yes/no)?"},
        {"role": "user", "content": "Yes, please go ahead."},
    ]
    if kind == 1:
        messages += [_call(f"c{n}b", "update_reservation_flights", reservation_id=code, cabin="business",
                           flights=reservation["flights"], payment_id=reservation["payment_history"][0]["payment_id"]),
                     {"role": "tool", "tool_call_id": f"c{n}b", "name": "update_reservation_flights",
                      "content": json.dumps({**reservation, "cabin": "business"})},
                     {"role": "assistant", "content": f"Your reservation {code} has been successfully upgraded to business class."}]
    else:
        if kind in (0, 2):
            result = json.dumps({**reservation, "status": "cancelled"}) if kind == 0 else "Error: reservation cannot be cancelled"
            messages += [_call(f"c{n}b", "cancel_reservation", reservation_id=code),
                         {"role": "tool", "tool_call_id": f"c{n}b", "name": "cancel_reservation", "content": result}]
        messages.append({"role": "assistant", "content": f"The reservation {code} has been successfully cancelled. "
                                                         "The refund will go to your original payment method."})
    messages.append({"role": "user", "content": "Thank you! ###STOP###"})
    return {"task_id": n % 50, "trial": n // 50, "reward": float(kind < 2), "info": {"task": {"user_id": user}},
            "traj": messages}


def write(path: Path, count: int) -> int:
    rng = random.Random(24)
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for n in range(count):
            out.write(("," if n else "") + json.dumps(trajectory(n, rng)))
        out.write("]")
    return path.stat().st_size


_WRAPPER = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode; "
            "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def measured(command: list[str]) -> tuple[float, float, int]:
    """Seconds, peak resident MB of the command (measured by a wrapper process of its own), and its exit code."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _WRAPPER, *command], cwd=ROOT, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    code, peak_kb = map(int, done.stdout.split())
    return seconds, peak_kb / 1024, code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="1,000 trajectories")
    parser.add_argument("--trajectories", type=int, default=None)
    args = parser.parse_args(argv)
    count = args.trajectories or (1_000 if args.short else 10_000)
    rows, data = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trajectories.json"
        progress(f"writing {count} trajectories")
        size = write(path, count)
        progress(f"{size / 1e6:.0f} MB; json.load alone")
        load_s, load_mb, _ = measured([sys.executable, "-c", f"import json; json.load(open({str(path)!r}))"])
        progress("factline audit")
        audit_s, audit_mb, code = measured([sys.executable, "-m", "pipeline.cli", "audit", str(path), "--json"])
        if code != 3:
            print(f"factline audit exited {code}, expected 3 (half the trajectories claim what was not done)",
                  file=sys.stderr)
            return 1
        data = {"trajectories": count, "file_mb": round(size / 1e6, 1), "audit_seconds": round(audit_s, 1),
                "audit_peak_mb": round(audit_mb), "trajectories_per_second": round(count / audit_s),
                "json_load_seconds": round(load_s, 1), "json_load_peak_mb": round(load_mb)}
        rows.append([count, data["file_mb"], data["audit_seconds"], data["trajectories_per_second"],
                     data["audit_peak_mb"], data["json_load_peak_mb"]])
    print(table(["trajectories", "file MB", "audit s", "trajectories/s", "audit peak RSS MB",
                 "json.load peak RSS MB"], rows))
    if not args.short:
        save("bench_audit", data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
