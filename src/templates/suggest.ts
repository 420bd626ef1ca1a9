/**
 * Pattern detection: which templates a feature's description (spec.md) calls for, from the words
 * it uses. Deliberately simple and explainable: each suggestion names the words that led to it.
 */

export interface Pattern {
  name: string;
  /** Whole words or phrases, matched case-insensitively. */
  keywords: readonly string[];
  templates: readonly string[];
}

export const PATTERNS: readonly Pattern[] = [
  {
    name: 'framework migration',
    keywords: ['migrate', 'migrating', 'migration', 'convert', 'converting', 'port', 'porting', 'react', 'jinja2', 'jinja'],
    templates: ['visual-parity-migration', 'css-audit', 'template-comparison'],
  },
  {
    name: 'visual parity',
    keywords: ['match styling', 'same look', 'look the same', 'pixel perfect', 'pixel-perfect', 'visual parity', 'visual regression'],
    templates: ['visual-parity-migration', 'post-iteration-visual-diff'],
  },
  {
    name: 'API changes',
    keywords: ['endpoint', 'endpoints', 'rest api', 'restful', 'route', 'routes', 'api'],
    templates: ['endpoint-validation'],
  },
  {
    name: 'large codebase',
    keywords: ['many files', 'multiple subsystems', 'across the codebase', 'large codebase', 'monorepo'],
    templates: ['file-inventory'],
  },
  {
    name: 'security review',
    keywords: ['auth', 'authentication', 'login', 'password', 'passwords', 'security', 'encrypt', 'encryption', 'token', 'tokens', 'session', 'sessions'],
    templates: ['adversarial-review'],
  },
];

export interface Suggestion {
  template: string;
  /** The patterns that proposed it, each with the words found. */
  because: { pattern: string; words: string[] }[];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The templates `text` calls for, in library order of first proposal. */
export function suggestTemplates(text: string, patterns: readonly Pattern[] = PATTERNS): Suggestion[] {
  const byTemplate = new Map<string, Suggestion>();
  for (const pattern of patterns) {
    const words = pattern.keywords.filter((keyword) =>
      new RegExp(`(?<![\\w-])${escape(keyword).replace(/ /g, '\\s+')}(?![\\w-])`, 'i').test(text),
    );
    if (words.length === 0) continue;
    for (const template of pattern.templates) {
      const suggestion = byTemplate.get(template) ?? { template, because: [] };
      suggestion.because.push({ pattern: pattern.name, words });
      byTemplate.set(template, suggestion);
    }
  }
  return [...byTemplate.values()];
}
