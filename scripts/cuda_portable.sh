#!/usr/bin/env bash
# Build a `--features cuda` hawiya on a machine with neither a GPU nor a CUDA toolkit,
# to carry to one that has the NVIDIA driver and the CUDA 13 libraries (cuBLAS, cuRAND,
# cudart: PyTorch's CUDA 13 wheels hold them):
#
#   scripts/cuda_portable.sh            # -> target/cuda/release/hawiya, and hawiya.gz beside it
#   CUDA_COMPUTE_CAP=80 scripts/cuda_portable.sh   # for an A100 (default 90: H100, H200)
#
# There: LD_LIBRARY_PATH=<folder of libcublas.so.13 and friends> hawiya ... --device cuda
#
# nvcc comes from NVIDIA's PyPI wheels (about 100 MB, once). The binary links the CUDA
# libraries dynamically; here they are stand-ins holding every CUDA symbol the code
# names (read from the compiled crates), so the binary records the real libraries'
# names and binds to them where it runs. Needs python3 with pip, nm and cc.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=${CUDA_TOOLS:-target/cuda-tools}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/cuda}
export CUDA_COMPUTE_CAP=${CUDA_COMPUTE_CAP:-90}
if [ ! -x "$tools/nvidia/cu13/bin/nvcc" ]; then
    python3 -m pip install -q --no-deps --only-binary=:all: --target "$tools" \
        nvidia-cuda-nvcc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88 \
        nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85
fi
mkdir -p "$tools/stubs"
cuda=$(realpath "$tools/nvidia/cu13")
stubs=$(realpath "$tools/stubs")
ln -sf "$cuda/lib/libcudart.so.13" "$stubs/libcudart.so"
export PATH=$cuda/bin:$PATH CUDA_ROOT=$cuda CUDA_PATH=$cuda LIBRARY_PATH=$stubs
export RUSTFLAGS="-L $stubs"

build() { cargo build --release --features cuda --bin hawiya; }

# stub LIB SONAME PATTERN [EXCLUDED]: a shared library defining the listed symbols
# that match PATTERN (and not EXCLUDED).
stub() {
    grep -E "$3" "$stubs/symbols.txt" | grep -v -E "${4:-^$}" |
        awk '{ print "void " $1 "(void) {}" }' >"$stubs/$1.c"
    cc -shared -fPIC -Wl,-soname,"$2" -o "$stubs/lib$1.so" "$stubs/$1.c"
}

# The first build compiles every crate (candle's kernels take about 9 minutes on two
# cores); its link fails until the stand-ins exist, which are made from its crates.
if ! build; then
    deps=$CARGO_TARGET_DIR/release/deps
    nm -u "$deps"/libcudarc-*.rlib "$deps"/libcandle_core-*.rlib 2>/dev/null |
        awk '{ print $2 }' | grep -E '^(cu|nvrtc)' | sort -u >"$stubs/symbols.txt"
    stub cublasLt libcublasLt.so.13 '^cublasLt'
    stub cublas libcublas.so.13 '^cublas' '^cublasLt'
    stub curand libcurand.so.10 '^curand'
    stub nvrtc libnvrtc.so.13 '^nvrtc'
    stub cuda libcuda.so.1 '^cu' '^(cublas|curand|cuda[A-Z])'
    build
fi
strip -o "$CARGO_TARGET_DIR/release/hawiya.stripped" "$CARGO_TARGET_DIR/release/hawiya"
gzip -9 -c "$CARGO_TARGET_DIR/release/hawiya.stripped" >"$CARGO_TARGET_DIR/release/hawiya.gz"
rm "$CARGO_TARGET_DIR/release/hawiya.stripped"
echo "built $CARGO_TARGET_DIR/release/hawiya ($(du -h "$CARGO_TARGET_DIR/release/hawiya.gz" | cut -f1) gzipped)"
