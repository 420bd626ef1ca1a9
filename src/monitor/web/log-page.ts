import { terminalText } from '../../util/control-chars.js';
import { escapeXml } from './chart.js';

/** One iteration's log as a page: the rendered lines, escaped, with a way back and to the raw file. */
export function logPage(input: {
  loopId: string;
  iteration: number;
  attempt: number;
  lines: readonly string[];
}): string {
  const query = new URLSearchParams({
    loop: input.loopId,
    iteration: String(input.iteration),
    attempt: String(input.attempt),
  });
  const back = new URLSearchParams({ loop: input.loopId });
  const title = `iteration ${input.iteration}${input.attempt > 1 ? `, attempt ${input.attempt}` : ''}`;
  const body = input.lines
    // Control characters and bidi overrides shown as escapes, as in `ralph logs`.
    .map((line) => `<span class="${lineClass(line)}">${escapeXml(terminalText(line))}</span>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(`${input.loopId}: ${title}`)}</title>
<style>
body { margin:0; font:14px/1.45 system-ui, sans-serif; background:#0f172a; color:#e2e8f0; }
header { padding:10px 20px; background:#1d2430; display:flex; gap:16px; align-items:center; }
header a { color:#93c5fd; } h1 { font-size:16px; margin:0; }
pre { margin:0; padding:16px 20px; font:13px/1.5 ui-monospace, "DejaVu Sans Mono", monospace; white-space:pre-wrap; word-break:break-word; }
.tool { color:#fbbf24; } .result { color:#4ade80; } .text { color:#e2e8f0; } .err { color:#f87171; } .meta { color:#94a3b8; }
</style></head>
<body><header><a href="/?${escapeXml(back.toString())}" id="back">← dashboard</a><h1 id="log-title">${escapeXml(input.loopId)}: ${escapeXml(title)}</h1>
<a href="/log?${escapeXml(query.toString())}&amp;raw=1">raw</a><span>${input.lines.length} lines</span></header>
<pre id="log">${body}</pre></body></html>
`;
}

function lineClass(line: string): string {
  const text = line.trimStart();
  if (text.startsWith('→')) return 'tool';
  if (text.startsWith('■')) return 'result';
  if (text.startsWith('✗')) return 'err';
  if (text.startsWith('●') || text.startsWith('←') || text.startsWith('◆') || text.startsWith('·'))
    return 'meta';
  return 'text';
}
