import type { ChangeScan } from './changed-files.js';
import type { StubKind } from './stub-scan.js';
import type { VerifyStatus } from './verdict.js';

const KIND_NAMES: Readonly<Record<StubKind, string>> = {
  todo: 'TODO marker',
  'not-implemented': 'not implemented',
  'empty-body': 'empty body',
};
const MAX_LISTED = 200;

/**
 * The part of VERIFICATION.md that ralph writes itself, after the agent's report: its own stub
 * scan of the added lines and the status ralph settled on (with why, when it differs from the
 * agent's).
 */
export function scanSection(
  scan: ChangeScan,
  outcome: { status: VerifyStatus; reasons: readonly string[] },
): string {
  const lines = ['---', '', "## ralph's check", '', `**Status: ${outcome.status}**`, ''];
  for (const reason of outcome.reasons) lines.push(`- ${reason}`);
  if (outcome.reasons.length > 0) lines.push('');
  lines.push('### Stub scan of the changed files', '', `Compared with: ${scan.base}.`, '');
  if (scan.problem !== undefined) {
    lines.push(`The scan could not be done: ${scan.problem}`);
  } else if (scan.files.length === 0) {
    lines.push('No added lines to scan.');
  } else if (scan.findings.length === 0) {
    lines.push(
      `${plural(scan.files.length, 'file')} scanned; no TODO markers, "not implemented" or empty bodies in the added lines.`,
    );
  } else {
    lines.push(
      `${plural(scan.files.length, 'file')} scanned; ${plural(scan.findings.length, 'finding')} in the added lines (patterns, not proof: each is a line to look at):`,
      '',
      '| file | line | kind | text |',
      '| --- | --- | --- | --- |',
      ...scan.findings
        .slice(0, MAX_LISTED)
        .map(
          (each) =>
            `| ${cell(each.file)} | ${each.line} | ${KIND_NAMES[each.kind]} | ${cell(each.text)} |`,
        ),
    );
    if (scan.findings.length > MAX_LISTED) {
      lines.push('', `… and ${scan.findings.length - MAX_LISTED} more.`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function cell(text: string): string {
  return `\`${text.replaceAll('|', '\\|').replaceAll('`', "'")}\``;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
