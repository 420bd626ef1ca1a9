# ralph post-iteration hook: screenshots the pages named in hooks/visual-diff.json and compares
# them with the baseline screenshots (the first run records the baseline). Installed by
# `ralph templates add post-iteration-visual-diff` as hooks/post_iteration.d/visual-diff.sh, with
# its code and settings in hooks/visual-diff/ (config.json: base URL, pages, threshold).
# Needs Node and playwright-core in the project (npm install --save-dev playwright-core) and a
# Chromium (/usr/bin/chromium, or CHROMIUM_PATH); without them it says so and skips.
loop_dir="${RALPH_FEATURE_DIR:-$(dirname "$0")/../..}"
exec node "$loop_dir/hooks/visual-diff/visual-diff.mjs" "$loop_dir/hooks/visual-diff/config.json" "$loop_dir"
