"""xtir-tune FILE --trials N [--func F] [--db PATH] [--target T] [--cost-model xgb|none] [--best]
[--plot out.png]: tune a function of an xtir IR file and print the best schedule as an `xtir-opt -p` pipeline."""

from __future__ import annotations

import argparse
import os
import sys

from xtir import parse_file
from xtir.dialects.symbols import functions
from xtir.errors import XtirError
from xtir.passes.analysis.navigation import select_function
from xtir.tune.cost_model import COST_MODELS
from xtir.tune.database import Database, workload_key
from xtir.tune.tuner import SPACES, search, space_for


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xtir-tune", description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--trials", type=_positive, default=32)
    parser.add_argument("--func", help="the function to tune (default: the only one)")
    parser.add_argument("--db", help="the SQLite tuning database to read and extend")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--target", default="llvm", choices=list(SPACES),
                        help="llvm (the CPU), cuda (a GPU), or cuda-cpu (checks GPU schedules on the CPU)")
    parser.add_argument("--cost-model", default="xgb", choices=COST_MODELS,
                        help="rank candidates with a learned model before measuring (xgb: needs xgboost)")
    parser.add_argument("--best", action="store_true", help="print the database's best pipeline; measure nothing")
    parser.add_argument("--plot", help="write a PNG of the best GFLOP/s so far against trials")
    args = parser.parse_args(argv)
    try:
        module = parse_file(args.file)
        _check_function_chosen(module, args)
        if args.best:
            return _print_best(module, args)
        result = search(module, args.target, args.trials, seed=args.seed, database=args.db, func_name=args.func,
                        progress=True, cost_model=args.cost_model)
    except XtirError as e:
        print(e, file=sys.stderr)
        return 1
    except OSError as e:  # an unreadable input file
        print(f"xtir-tune: error: {e}", file=sys.stderr)
        return 1
    if result.best is None:
        print(f"xtir-tune: no candidate built and computed the right results ({result.failed()})", file=sys.stderr)
        return 1
    print(f"// {result.measured} measured, {result.failures} failed; best {result.history[-1]:.1f} GFLOP/s "
          f"({result.best_latency * 1e3:.3f} ms); {result.versus_baselines()}", file=sys.stderr)
    print(result.best.trace)
    if args.plot:
        try:
            plot(result.history, args.plot)
        except (OSError, ValueError) as e:  # printed already: only the plot is lost (ValueError: an unknown format)
            print(f"xtir-tune: error: no plot written: {e}", file=sys.stderr)
            return 1
    return 0


def _positive(text: str) -> int:
    if not text.lstrip("-").isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of trials, got {text!r}")
    return int(text)


def _check_function_chosen(module, args: argparse.Namespace) -> None:
    names = [f.sym_name.data for f in functions(module)]
    if args.func is None and len(names) > 1:
        raise XtirError(f"xtir-tune: {args.file} has {len(names)} functions ({', '.join(names)}); "
                        "choose one with --func NAME")


def _print_best(module, args: argparse.Namespace) -> int:
    if not args.db:
        print("xtir-tune: --best reads the database: give --db PATH", file=sys.stderr)
        return 1
    name = select_function(module, args.func).sym_name.data
    if not os.path.exists(args.db):  # opening it would create an empty database
        print(f"xtir-tune: no tuning database at {args.db}", file=sys.stderr)
        return 1
    db = Database(args.db)
    records = db.records(workload_key(module, name, space_for(args.target).__qualname__), args.target)
    db.close()
    if not records:
        print(f"xtir-tune: the database has no measured schedule of function '{name}' of {args.file}", file=sys.stderr)
        return 1
    print(records[0].pipeline)
    return 0


def plot(history: list[float], path: str) -> None:
    """Best GFLOP/s so far against trials, as a PNG (needs matplotlib: the `tune` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"xtir-tune: matplotlib is not installed (pip install 'xtir[tune]'); no plot written to {path}",
              file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(range(1, len(history) + 1), history, drawstyle="steps-post")
    ax.set_xlabel("trials")
    ax.set_ylabel("best GFLOP/s so far")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
