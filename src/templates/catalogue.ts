import { fileURLToPath } from 'node:url';

/**
 * The template library shipped in the package's templates/library/ (README, "Templates"):
 * skills (instructions for the agent), scripts (one call that does what would take the agent
 * dozens of tool calls; JSON on stdout, a summary on stderr) and hooks. `ralph templates add`
 * copies a template's files into a loop directory, where the person adapts them.
 */

export type TemplateKind = 'skill' | 'script' | 'hook';

export interface TemplateFile {
  /** Relative to templates/library/. */
  source: string;
  /** Relative to the loop directory. */
  target: string;
}

export interface Template {
  name: string;
  kind: TemplateKind;
  useWhen: string;
  description: string;
  files: readonly TemplateFile[];
}

export const LIBRARY_DIR = fileURLToPath(new URL('../../templates/library/', import.meta.url));

const same = (path: string): TemplateFile => ({ source: path, target: path });

export const TEMPLATES: readonly Template[] = [
  {
    name: 'visual-parity-migration',
    kind: 'skill',
    useWhen: 'moving a UI to another framework',
    description:
      'Copy class names verbatim, define every CSS variable used, compare old and new markup, check the screenshots.',
    files: [same('skills/visual-parity-migration.md')],
  },
  {
    name: 'adversarial-review',
    kind: 'skill',
    useWhen: 'security-sensitive changes',
    description:
      'Attack the change (injection, auth bypass, data exposure, races), then defend it with fixes and tests.',
    files: [same('skills/adversarial-review.md')],
  },
  {
    name: 'css-audit',
    kind: 'script',
    useWhen: 'CSS and styling work',
    description: 'CSS variables used but never defined (and defined but unused), in one JSON report.',
    files: [same('scripts/css-audit.mjs')],
  },
  {
    name: 'endpoint-validation',
    kind: 'script',
    useWhen: 'API and route work',
    description:
      'Requests every endpoint (listed, or found in the source) of a running server at once; one JSON report.',
    files: [same('scripts/endpoint-validation.mjs')],
  },
  {
    name: 'file-inventory',
    kind: 'script',
    useWhen: 'large features touching many files',
    description:
      'Every file by category with its size, and optionally its text, so each is read once.',
    files: [same('scripts/file-inventory.mjs')],
  },
  {
    name: 'template-comparison',
    kind: 'script',
    useWhen: 'framework migrations',
    description: 'Classes the source templates use that the target templates lack, per file.',
    files: [same('scripts/template-comparison.mjs')],
  },
  {
    name: 'post-iteration-visual-diff',
    kind: 'hook',
    useWhen: 'the UI must keep its look',
    description:
      'After each iteration, screenshots the configured pages and compares them with a baseline (playwright-core, Chromium).',
    files: [
      {
        source: 'hooks/post-iteration-visual-diff.sh',
        target: 'hooks/post_iteration.d/visual-diff.sh',
      },
      // In a folder of hooks/: hook code stays where the agent cannot write (the guard and the
      // sandbox keep hooks/ for the person), and preflight reads only hooks/'s own files.
      { source: 'hooks/visual-diff.mjs', target: 'hooks/visual-diff/visual-diff.mjs' },
      { source: 'hooks/visual-diff.json', target: 'hooks/visual-diff/config.json' },
    ],
  },
];

export function findTemplate(name: string): Template | undefined {
  const wanted = name.replace(/\.(md|mjs|sh)$/, '');
  return TEMPLATES.find((template) => template.name === wanted);
}
