#!/usr/bin/env bash
# Framework evaluation for the looped-transformer stage (issue 46; docs/environment.md, "The training framework"):
# install size and time of JAX (jax, jaxlib, optax from PyPI) and PyTorch (torch==2.13.0, the CPU build on this
# machine's disk; PyPI's default wheel pulls the CUDA libraries), each in a fresh venv beside numpy, and bitwise
# determinism of the same 200 training steps run three times (the third with one thread).
# Usage: bash benchmarks/framework/evaluate.sh  -> benchmarks/framework/evaluation.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$here/evaluation.json"
echo "[" > "$out.tmp"
first=1
for fw in jax torch; do
  python3 -m venv "$work/$fw"
  "$work/$fw/bin/python" -m pip install -q numpy==2.4.6
  base=$(du -sm "$work/$fw" | cut -f1)
  start=$(date +%s.%N)
  if [ "$fw" = jax ]; then
    "$work/$fw/bin/python" -m pip install -q jax jaxlib optax
  else
    "$work/$fw/bin/python" -m pip install -q torch==2.13.0
  fi
  end=$(date +%s.%N)
  size=$(( $(du -sm "$work/$fw" | cut -f1) - base ))
  versions=$("$work/$fw/bin/python" -m pip freeze | grep -iE "^(jax|jaxlib|optax|torch)==" | paste -sd, -)
  runs=()
  for i in 1 2; do runs+=("$("$work/$fw/bin/python" "$here/train_$fw.py" 2>/dev/null | tail -1)"); done
  runs+=("$(OMP_NUM_THREADS=1 "$work/$fw/bin/python" "$here/train_$fw.py" 2>/dev/null | tail -1)")
  secs=$(printf '%s\n' "${runs[@]}" | awk '{print $2}' | paste -sd, -)
  bits=$(printf '%s\n' "${runs[@]}" | awk '{print $3 " " $4}' | sort -u | wc -l)
  [ $first = 1 ] || echo "," >> "$out.tmp"
  first=0
  printf '{"framework": "%s", "versions": "%s", "install_seconds": %.1f, "install_mb": %d, "train_seconds": [%s], "bitwise_identical_runs": %s}\n' \
    "$fw" "$versions" "$(echo "$end - $start" | bc)" "$size" "$secs" "$([ "$bits" = 1 ] && echo true || echo false)" >> "$out.tmp"
done
echo "]" >> "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
