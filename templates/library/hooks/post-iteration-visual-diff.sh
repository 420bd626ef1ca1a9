# ralph post-iteration hook: screenshots the pages named in hooks/visual-diff.json and compares
# them with the baseline screenshots (the first run records the baseline). Installed by
# `ralph templates add post-iteration-visual-diff` as hooks/post_iteration.d/visual-diff.sh.
# Needs Node and playwright-core in the project (npm install --save-dev playwright-core) and a
# Chromium (/usr/bin/chromium, or CHROMIUM_PATH); without them it says so and skips.
hooks_dir="${RALPH_FEATURE_DIR:-$(dirname "$0")/../..}/hooks"
exec node "$hooks_dir/visual-diff.mjs" "$hooks_dir/visual-diff.json"
