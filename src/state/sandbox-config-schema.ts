import { flag, list, section, wholeNumber } from './config-setting.js';

/**
 * The `sandbox` section of config.yaml: the OS sandbox (bubblewrap on Linux, src/sandbox/) around
 * the agent's whole process tree in `ralph run`, and around `ralph sandbox -- COMMAND`. On by
 * default: a run without it warns in its output every time, and a run with it on but no
 * bubblewrap installed is refused (preflight) rather than run unprotected.
 */

const paths = (description: string) =>
  list({
    description: `${description} Relative to the project; ~/ for home.`,
    requirement: 'a list of paths',
    default: [],
  });

export const SANDBOX_SETTINGS = section(
  "The OS sandbox around the agent's process tree (Linux: bubblewrap).",
  {
    enabled: flag({
      description:
        "`ralph run` starts the agent inside bubblewrap: only the work tree, a private /tmp, tool caches and the agent CLI's state folder are writable; .git/hooks, .git/config, .claude/, .mcp.json and ralph's control files are read-only; ~/.ssh, ~/.aws, the project's .env files and other secrets are hidden; the agent gets its own pid namespace. `--no-sandbox` turns it off for one run.",
      default: true,
    }),
    maxProcesses: wholeNumber(0, {
      description:
        "The most processes the agent's sandbox may hold at once (fork bombs), through a pids cgroup where /sys/fs/cgroup is writable (else no cap, said in `ralph run --dry-run`).",
      default: 4096,
      zeroMeans: 'no cap',
    }),
    writable: paths('More files or folders the agent may write (they must exist).'),
    readOnly: paths('More files or folders inside writable ones that the agent may only read.'),
    hidden: paths('More files or folders the agent must not see (replaced by empty ones).'),
  },
  'a mapping (enabled, maxProcesses, writable, readOnly, hidden)',
);
