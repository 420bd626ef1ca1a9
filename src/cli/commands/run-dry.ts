import { relative } from 'node:path';
import { iterationPrompt } from '../../core/iteration-prompt.js';
import { selectModel } from '../../core/model-select.js';
import { readMemorySection } from '../../core/memory-section.js';
import { describePromptSize, overBudgetWarning } from '../../core/prompt-budget.js';
import { nextStory, summarise } from '../../plan/order.js';
import { readTaskListFile } from '../../plan/read.js';
import { writeLine, type CliContext } from '../context.js';
import { writeJson } from '../output.js';
import { dryRunSettings } from '../../run/guard.js';
import type { RunPlan } from '../../run/plan.js';

/** `ralph run --dry-run`: what the next iteration would do, exactly, without doing it. */
export async function printDryRun(
  context: CliContext,
  prepared: RunPlan,
  json: boolean,
): Promise<void> {
  const { options, agent } = prepared;
  const document = await readTaskListFile(options.taskListFile);
  const summary = summarise(document.taskList);
  const story = nextStory(document.taskList);
  const shown = (path: string): string => relative(options.cwd, path) || '.';
  const start = options.resume?.iteration ?? options.lastIteration ?? 0;
  const plan = {
    loopDir: options.loopDir,
    taskList: options.taskListFile,
    stories: { total: summary.total, passing: summary.passing },
    iteration: start + 1,
    maxIterations: start + options.maxIterations,
    prompt: prepared.promptSource,
    next: story === undefined ? null : { id: story.id, title: story.title },
    model: story === undefined ? null : selectModel(story, document.taskList, options.models),
    promptBytes: 0,
    // ≈ 4 characters a token, against context.tokenBudget.
    promptTokens: 0,
    tokenBudget: options.tokenBudget ?? 0,
    promptOverBudget: false,
    // The prompt goes to the agent's stdin, never into its argv.
    command: null as { command: string; args: string[]; stdin: 'prompt' } | null,
    // What ralph would run before believing the next story's claim.
    verification: {
      verify: story?.verify ?? [],
      qualityChecks: options.verification?.qualityChecks ?? {},
      testIntegrity: options.verification?.testIntegrity ?? false,
      timeoutMs: options.verification?.timeoutMs ?? 0,
    },
  };
  let promptLine = '';
  const warnings = [...prepared.warnings];
  if (story !== undefined && plan.model !== null) {
    const memories = await dryRunMemories(prepared, story, shown);
    const { prompt, size } = await iterationPrompt(options, story, '', memories);
    plan.promptBytes = size.bytes;
    plan.promptTokens = size.tokens;
    plan.tokenBudget = size.budget;
    plan.promptOverBudget = size.overBudget;
    if (size.overBudget) warnings.push(overBudgetWarning(story.id, size));
    promptLine = describePromptSize(size);
    const line = agent.commandLine({
      prompt: prompt + memories,
      cwd: options.cwd,
      model: plan.model.model,
      mcpServers: story.mcpServers,
      permission: options.permission,
      settings: dryRunSettings(prepared.guard, options.settings),
      env: options.env,
      timeoutMs: options.timeoutMs,
    });
    plan.command = { command: line.command, args: line.args, stdin: 'prompt' };
  }
  // What a run would show as warning events: on stderr, so stdout stays the plan (and --json).
  for (const warning of warnings) writeLine(context.stderr, `ralph: warning: ${warning}`);
  if (json) {
    writeJson(context, plan);
    return;
  }
  const out = context.stdout;
  writeLine(out, `Dry run — nothing is started.`);
  writeLine(out, `Loop directory: ${shown(options.loopDir)}/`);
  writeLine(
    out,
    `Task list:      ${shown(options.taskListFile)} (${summary.passing}/${summary.total} passing)`,
  );
  writeLine(out, `Iteration:      ${plan.iteration} (this run stops after ${plan.maxIterations})`);
  if (story === undefined || plan.model === null || plan.command === null) {
    writeLine(
      out,
      `Next story:     none (${summary.passing === summary.total ? 'every story passes' : 'all open stories wait on dependsOn'})`,
    );
    return;
  }
  writeLine(out, `Next story:     ${story.id} ${story.title}`);
  writeLine(
    out,
    `Model:          ${plan.model.model ?? "(the agent's default)"} (from ${plan.model.source})`,
  );
  writeLine(out, `Verified by:    ${verificationLine(plan.verification)}`);
  writeLine(
    out,
    `Prompt:         ${plan.promptBytes} bytes, ${promptLine}, from ${prepared.promptSource}`,
  );
  writeLine(
    out,
    `Command:        ${[plan.command.command, ...plan.command.args].map(quote).join(' ')} < prompt`,
  );
}

/** The memories section the engine would append (memory-upkeep.ts), its warning shown as a run's. */
async function dryRunMemories(
  prepared: RunPlan,
  story: Parameters<typeof readMemorySection>[1],
  shown: (path: string) => string,
): Promise<string> {
  const settings = prepared.options.memory;
  if (settings === undefined) return '';
  const section = await readMemorySection(settings, story, shown);
  if (section.warning !== undefined) prepared.warnings.push(section.warning);
  return section.text;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function verificationLine(plan: {
  verify: readonly string[];
  qualityChecks: Readonly<Record<string, string>>;
  testIntegrity: boolean;
}): string {
  const parts = [
    ...(plan.testIntegrity ? ['the test-integrity scan'] : []),
    ...plan.verify.map((command) => `\`${command}\``),
    ...Object.entries(plan.qualityChecks).map(([name, command]) => `${name} (\`${command}\`)`),
  ];
  return parts.length === 0 ? 'nothing: no verify or quality checks' : parts.join(', then ');
}
