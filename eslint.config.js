// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Layer boundaries (design.md §1): imports flow one way. Each entry forbids a layer from
 * reaching "upwards" or sideways into layers it must not know about; `allow` names single
 * modules of a forbidden layer that may still be imported (e.g. 'agents/spawn.js').
 * @param {string[]} layers
 * @param {string[]} [allow]
 */
const forbidLayers = (layers, allow = []) =>
  layers.map((layer) => {
    const allowed = allow.filter((module) => module.startsWith(`${layer}/`));
    // gitignore semantics: nothing inside a folder matched as a whole (`**/agents`) can be
    // re-included, so a layer with allowed modules is matched file by file only (a bare
    // folder import does not resolve under NodeNext anyway).
    const folder = allowed.length === 0 ? [`**/${layer}`] : [];
    return {
      group: [
        `**/${layer}/*`,
        ...folder,
        `../${layer}/*`,
        `../../${layer}/*`,
        ...allowed.flatMap((module) => [`!**/${module}`, `!../${module}`, `!../../${module}`]),
      ],
      message: `This layer must not import from src/${layer} (design.md §1: imports flow one way).`,
    };
  });

/**
 * agents/spawn.ts is the only file of the product that starts processes (design.md §1): one
 * place for process groups, timeouts, the parent-death binding and the result shape. Tests may
 * spawn directly: they start the product itself (the built CLI, a fake agent) and must not
 * depend on the code they test to do it. A separate rule name, so the layer rules below, which
 * configure no-restricted-imports per folder, do not replace it.
 */
const ONE_SPAWN_MODULE = {
  files: ['src/**/*.ts'],
  ignores: ['src/agents/spawn.ts', '**/*.test.ts'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        paths: ['node:child_process', 'child_process'].map((name) => ({
          name,
          message: 'Start processes through src/agents/spawn.ts, the one module that spawns.',
        })),
      },
    ],
    'no-restricted-syntax': [
      'error',
      {
        selector: 'ImportExpression[source.value=/^(node:)?child_process$/]',
        message: 'Start processes through src/agents/spawn.ts, the one module that spawns.',
      },
    ],
  },
};

const uiPackages = [
  {
    group: ['ink', 'ink/*', 'react', 'react/*'],
    message: 'Only src/monitor/tui may load ink/React.',
  },
];

/**
 * What each layer must not import (design.md §1; the core's rules are below, with its own
 * restrictions on process globals). `ui: true` lets a layer load ink/React: only the monitor,
 * whose TUI is loaded lazily by `ralph monitor` alone. `allow`: see forbidLayers.
 * @type {Record<string, { forbid: string[], ui?: boolean, allow?: string[] }>}
 */
const LAYER_RULES = {
  plan: { forbid: ['cli', 'core', 'agents', 'monitor', 'safety', 'guard', 'hooks'] },
  state: { forbid: ['cli', 'core', 'agents', 'monitor', 'plan', 'safety', 'guard', 'hooks'] },
  util: {
    forbid: ['cli', 'core', 'agents', 'monitor', 'plan', 'state', 'safety', 'guard', 'hooks'],
  },
  agents: { forbid: ['cli', 'core', 'plan', 'state', 'monitor', 'safety', 'guard', 'hooks'] },
  // Notifications start a desktop notifier: through the one module that spawns.
  monitor: {
    forbid: ['cli', 'agents', 'session-loop', 'guard', 'hooks'],
    ui: true,
    allow: ['agents/spawn.js'],
  },
  safety: {
    forbid: ['cli', 'core', 'agents', 'plan', 'monitor', 'session-loop', 'guard', 'hooks'],
  },
  'session-loop': {
    forbid: ['cli', 'core', 'agents', 'plan', 'monitor', 'safety', 'guard', 'hooks'],
  },
  guard: {
    forbid: ['cli', 'core', 'agents', 'plan', 'monitor', 'safety', 'session-loop', 'hooks'],
  },
  // The person's hook scripts: started through agents/spawn.ts, found through state/paths.ts.
  hooks: { forbid: ['cli', 'core', 'plan', 'monitor', 'safety', 'session-loop', 'guard'] },
  // The OS sandbox: a policy and its bubblewrap command line; it starts nothing itself.
  sandbox: {
    forbid: [
      'cli',
      'core',
      'agents',
      'plan',
      'monitor',
      'safety',
      'session-loop',
      'guard',
      'hooks',
    ],
  },
  // The template library: its catalogue, copying into a loop directory, pattern detection.
  templates: {
    forbid: [
      'cli',
      'core',
      'agents',
      'plan',
      'monitor',
      'safety',
      'session-loop',
      'guard',
      'hooks',
      'run',
    ],
  },
  // The library's whole run (startRun): assembles core, agents, guard, state and the reporters.
  run: { forbid: ['cli', 'session-loop'] },
};

/**
 * What library code (design.md §7) must not touch: it takes everything from its options, so many
 * runs can share one process. The CLI reads the process and passes what it read.
 */
const LIBRARY_PROCESS_RULES = [
  { object: 'process', property: 'argv', message: 'The library takes options, not argv.' },
  {
    object: 'process',
    property: 'exit',
    message: 'The library returns results; cli/exit.ts exits.',
  },
  { object: 'process', property: 'stdout', message: 'The library reports through reporters.' },
  {
    object: 'process',
    property: 'env',
    message: 'The library takes its environment from options.',
  },
  {
    object: 'process',
    property: 'on',
    message: "Signals are the CLI's: the library takes an AbortSignal.",
  },
  {
    object: 'process',
    property: 'once',
    message: "Signals are the CLI's: the library takes an AbortSignal.",
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'schemas/**', 'templates/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The launcher (src/cli/bin.cjs) is CommonJS on purpose: it says why.
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: globals.node,
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['src/core/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...forbidLayers(['cli', 'monitor', 'session-loop']),
            ...uiPackages,
            {
              group: [
                '**/agents/claude/*',
                '**/agents/fake/*',
                '**/agents/registry*',
                '**/agents/spawn*',
              ],
              message:
                'The core reaches agents only through agents/types.ts (the port); the CLI picks the adapter.',
            },
          ],
        },
      ],
    },
  },
  ...Object.entries(LAYER_RULES).map(([layer, { forbid, ui, allow }]) => ({
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...forbidLayers(forbid, allow), ...(ui ? [] : uiPackages)] },
      ],
    },
  })),
  ONE_SPAWN_MODULE,
  {
    files: [
      'src/{core,run,agents,plan,safety,state,hooks,guard,sandbox,templates}/**/*.ts',
      'src/monitor/reporters/*.ts',
      'src/index.ts',
    ],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-properties': ['error', ...LIBRARY_PROCESS_RULES] },
  },
  {
    files: ['src/cli/**/*.ts', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-console': 'off',
    },
  },
);
