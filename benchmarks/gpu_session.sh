#!/usr/bin/env bash
# One command for a session that has a GPU: the GPU tests and benchmarks/gpu_matmul.py, logs in $OUT.
#
#   here, once (needs pip and its index):  benchmarks/gpu_session.sh --wheels
#       downloads the Python packages xtir needs that the GPU machine lacks (xdsl, immutabledict,
#       ordered-set; typing-extensions, which it has, maybe older than xdsl needs: all pure
#       Python) as wheels into .whl/ (ignored by git), at the versions installed here.
#   there, from the repository root (the device tool, with carry [".whl"]):
#       bash benchmarks/gpu_session.sh
#   The device tool sends the checkout its session started in: fetch the wheels in that checkout.
#
# The GPU machine (/work/.library/device/KINDS.md) has CUDA 13, nvcc, CuPy, cuda-python, PyTorch,
# numpy, llvmlite, setuptools and wheel for Python 3.12, and no network. The script installs the
# carried wheels into /tmp/xtir-site (first on PYTHONPATH) and xtir from this checkout, editable
# and without its dependencies (pip --no-deps --no-build-isolation), then runs these steps within
# $BUDGET seconds (default 540, under the tool's 10 minutes a command), each cut short by
# `timeout` where it would run over:
#   1. env.log        the GPU, nvcc and the versions of the packages xtir uses
#   2. install.log    the installation and an import check
#   3. gpu_tests.log  the tests that need a GPU or NVRTC (named *on_the_gpu*, *nvrtc*, *gpu_says_so*)
#   4. gpu_rerun.log  where some failed: each failed one again, alone in a new process (an illegal
#                     address breaks the CUDA context of its process: the tests after it in the
#                     same worker fail too, and only the ones that fail alone are at fault)
#   5. gpu_matmul.log benchmarks/gpu_matmul.py at n = 1024 and 4096 (a row as each is measured)
#      mlp_gpu.log    examples/mlp_gpu.py --target cuda: the torch MLP, default-gpu-schedule, vs torch
#   6. tests.log      the other tests of the GPU files (the cuda-cpu emulation, nvcc), in the time left
#   7. summary.txt    each step's outcome and pytest's result line, the reruns, and the benchmark's tables
# Without a GPU (here) it runs the same steps: the GPU tests are reported skipped, saying why, and
# the benchmark says why it did not run. Exit status: 0 when no step failed.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PYTHON:-}" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
OUT=${OUT:-/tmp/xtir-gpu-session}
BUDGET=${BUDGET:-540}
WHEELS=.whl
SITE=/tmp/xtir-site  # the carried wheels, first on PYTHONPATH
CARRIED=(xdsl immutabledict ordered-set typing-extensions)  # xdsl needs typing-extensions>=4.13
GPU_FILES=(tests/test_cuda*.py tests/test_double_buffer*.py tests/test_tune_gpu.py tests/test_to_gpu_numerics.py tests/test_gpu_model.py)
GPU_TESTS="on_the_gpu or nvrtc or gpu_says_so"

fetch_wheels() {
    mkdir -p "$WHEELS"
    local name version
    for name in "${CARRIED[@]}"; do
        version=$("$PYTHON" -c "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))" "$name") || return 1
        rm -f "$WHEELS/${name//-/_}"-*.whl
        python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
            --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
            -d "$WHEELS" "$name==$version" || return 1
    done
    ls -l "$WHEELS"
}

if [ "${1:-}" = "--wheels" ]; then
    fetch_wheels
    exit
fi

mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
FAILED=0

# step NAME SECONDS COMMAND...: run COMMAND with its output in $OUT/NAME.log, for at most SECONDS
# and never past the budget (15 s are kept for the summary).
step() {
    local name=$1 limit=$2 status
    shift 2
    local left=$((BUDGET - SECONDS - 15))
    [ "$limit" -gt "$left" ] && limit=$left
    if [ "$limit" -lt 20 ]; then
        echo "$name: not run, out of time" | tee -a "$SUMMARY"
        FAILED=1
        return 1
    fi
    timeout -k 5 "$limit" bash -c '"$@"' "$name" "$@" >"$OUT/$name.log" 2>&1  # bash -c: functions too
    status=$?
    case $status in
        0) echo "$name: ok" ;;
        124|137) echo "$name: cut short after $limit s (exit $status)" ;;
        *) echo "$name: failed (exit $status)" ;;
    esac | tee -a "$SUMMARY"
    [ "$status" -eq 0 ] || FAILED=1
    return "$status"
}

environment() {
    date -u
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1 || echo "no nvidia-smi"
    nvcc --version 2>&1 | tail -n 2 || echo "no nvcc"
    "$PYTHON" - <<'EOF'
import importlib.metadata as m
import sys

print("python", sys.version.split()[0], sys.executable)
for name in ("xdsl", "numpy", "llvmlite", "cupy-cuda13x", "cuda-bindings", "cuda-python", "nvidia-cuda-nvrtc", "torch"):
    try:
        print(name, m.version(name))
    except m.PackageNotFoundError:
        print(name, "not installed")
EOF
}

install() {
    rm -rf "$SITE" && mkdir -p "$SITE" || return 1
    if compgen -G "$WHEELS/*.whl" >/dev/null; then
        "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" "$WHEELS"/*.whl \
            || return 1
    fi
    # editable, as here: xtir.dialects is dialects/ (pyproject.toml), and the tests import xtir
    # with the checkout first on sys.path, where only setuptools' editable finder maps it so;
    # again where an editable install of another checkout maps it elsewhere
    "$PYTHON" -c "import pathlib, xtir.lowering as l; assert pathlib.Path(l.__file__).parent.samefile('lowering')" \
        2>/dev/null || "$PYTHON" -m pip install -q --no-index --no-deps --no-build-isolation -e . || return 1
    "$PYTHON" -c "import xdsl, xtir.lowering.cuda_function as c; print('xtir from', c.__file__); print('xdsl', xdsl.__file__)"
}

pytest_step() {
    local name=$1 limit=$2
    shift 2
    local parallel=()
    "$PYTHON" -c "import xdist" 2>/dev/null && parallel=(-n "$(( $(nproc) < 8 ? $(nproc) : 8 ))")
    step "$name" "$limit" "$PYTHON" -m pytest -q -rfEs -p no:cacheprovider "${parallel[@]}" "$@"
    local status=$?
    [ -f "$OUT/$name.log" ] && printf '  %s: %s\n' "$name" "$(tail -n 1 "$OUT/$name.log")" >>"$SUMMARY"
    return "$status"
}

# Each test gpu_tests.log reports failed (at most 12), alone in a new process: its result line.
rerun_failed() {
    local id
    for id in $(grep -oE '^(FAILED|ERROR) [^ ]+' "$OUT/gpu_tests.log" | cut -d' ' -f2 | sort -u | head -n 12); do
        echo "$id: $("$PYTHON" -m pytest -q -p no:cacheprovider "$id" 2>&1 | tail -n 1)"
    done
}

export -f environment install rerun_failed
export OUT PYTHON WHEELS SITE PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export XTIR_CACHE_DIR=${XTIR_CACHE_DIR:-/tmp/xtir-cache}
step env 30 environment
if ! step install 90 install; then
    echo "xtir could not be installed: carry its wheels (benchmarks/gpu_session.sh --wheels here, carry [\"$WHEELS\"])" \
        | tee -a "$SUMMARY"
    exit 1
fi
if ! pytest_step gpu_tests 200 "${GPU_FILES[@]}" -k "$GPU_TESTS" && [ -f "$OUT/gpu_tests.log" ]; then
    step gpu_rerun 120 rerun_failed
    sed 's/^/  alone: /' "$OUT/gpu_rerun.log" >>"$SUMMARY" 2>/dev/null
fi
step gpu_matmul 300 "$PYTHON" benchmarks/gpu_matmul.py --n 1024 4096
grep -E '^(device|n =|\||gpu_matmul:)' "$OUT/gpu_matmul.log" >>"$SUMMARY" 2>/dev/null
step mlp_gpu 120 "$PYTHON" examples/mlp_gpu.py --target cuda
grep -E '^(batch|mlp_gpu)' "$OUT/mlp_gpu.log" >>"$SUMMARY" 2>/dev/null
pytest_step tests 600 "${GPU_FILES[@]}" -k "not ($GPU_TESTS)"
echo "total: $SECONDS s of $BUDGET" | tee -a "$SUMMARY"
exit "$FAILED"
