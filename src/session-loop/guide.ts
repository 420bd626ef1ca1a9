/** The text of `ralph loop help` (and of the plugin's /help, which runs it). */
export function loopGuide(backstop: number): string {
  return `ralph loop: in-session Ralph loops

Instead of a fresh agent per iteration (ralph run), ONE Claude Code session keeps working: each
time it tries to stop, the Stop hook gives it the same prompt again, until it prints the
completion promise or reaches the iteration limit. It sees its earlier work in the files.

Setup (once per project):
  ralph setup --stop-hook     add the hook to .claude/settings.local.json
  ralph setup --plugin        or: a Claude Code plugin with /ralph-loop, /start-loop, /list, ...

Commands:
  ralph loop start "PROMPT" --max-iterations 20 --completion-promise DONE
  ralph loop wizard           guided: task, checkable success criteria, limit, promise
  ralph loop list [--json]    every loop: ACTIVE, UNCLAIMED, ORPHANED, ...
  ralph loop cancel [ID]      one loop, or all of them (asks; --yes for scripts)

How a loop runs:
  1. \`loop start\` writes .claude/ralph-loop-<id>.local.md (settings + the prompt, verbatim) and
     .claude/ralph-journal-<id>.md. The loop is UNCLAIMED.
  2. The next session in this project to stop CLAIMS it (a session runs one loop at a time);
     from then on only that session's stops feed it. Other sessions' loops are never touched.
  3. At each stop of its session: if the last assistant message contains
     <promise>TEXT</promise> with TEXT equal to the promise (spaces trimmed and collapsed,
     compared literally: * and ? are plain characters), the loop ends. It also ends when the
     iteration reaches --max-iterations, and in any case at the backstop of ${backstop} iterations
     (config loop.backstopIterations). Otherwise the stop is blocked with the prompt as reason,
     the iteration is counted and the journal gets an entry.
  4. A finished or cancelled loop's state file is removed; its journal stays.

Good promises are statements that are checkably true ("ALL TESTS PASS"). The model only learns
the promise from the prompt: say in it when to print <promise>TEXT</promise>.
A loop whose session went silent for longer than loop.orphanedAfterMinutes is ORPHANED: cancel it.
`;
}
