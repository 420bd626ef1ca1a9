/**
 * What ralph does when its output goes away: `ralph status | head -3` (the reader exits: EPIPE),
 * a closed terminal or a killed tmux pane (EIO). Node would throw an unhandled 'error' and die
 * mid-write, which for `ralph run` means state left RUNNING and a stale lock. Instead, like a
 * Unix program on SIGPIPE, ralph stops: a run through its SIGHUP path (the agent stopped, state
 * PAUSED, the lock released, resumable), any other command at once and quietly.
 */
export function closeQuietlyOnBrokenOutput(): void {
  let handled = false;
  const onError = (error: NodeJS.ErrnoException): void => {
    if (error.code !== 'EPIPE' && error.code !== 'EIO' && error.code !== 'ERR_STREAM_DESTROYED')
      throw error;
    if (handled) return;
    handled = true;
    // `ralph run` listens for SIGHUP (cli/commands/run-terminal.ts) and pauses; nothing else does.
    if (process.listenerCount('SIGHUP') > 0) process.kill(process.pid, 'SIGHUP');
    else process.exit(0);
  };
  process.stdout.on('error', onError);
  process.stderr.on('error', onError);
}
