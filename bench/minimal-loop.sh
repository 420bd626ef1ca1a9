#!/bin/bash
# The reference loop of bench/cost-ratios.bench.mjs: the shape of snarktank's ralph.sh without its
# archiving and progress-file chores. Run the agent on prompt.md, show its output, stop when the
# output carries the completion promise, else loop up to MAX iterations (no pause between them).
# Usage: minimal-loop.sh [MAX]   (in the repository; `claude` on PATH)
set -e

MAX_ITERATIONS=${1:-10}

for i in $(seq 1 "$MAX_ITERATIONS"); do
  echo "=== Iteration $i of $MAX_ITERATIONS ===" >&2

  OUTPUT=$(claude --dangerously-skip-permissions --print --output-format stream-json --verbose \
    < prompt.md 2>&1 | tee /dev/stderr) || true

  if echo "$OUTPUT" | grep -q "<promise>COMPLETE</promise>"; then
    echo "Complete after $i iterations" >&2
    exit 0
  fi
done

echo "Reached $MAX_ITERATIONS iterations without completing" >&2
exit 1
