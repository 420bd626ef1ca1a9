import {
  choice,
  nonNegativeNumber,
  positiveNumber,
  section,
  setting,
  wholeNumber,
} from './config-setting.js';
import * as z from 'zod';

/**
 * The settings of the unattended-safety policies (src/safety): timeouts, the circuit breaker,
 * the hourly rate limit, cost budgets, retries and usage limits. src/safety/settings.ts turns
 * their resolved values into the policies' units (DEFAULT_SAFETY is the defaults' result).
 */

export const USAGE_LIMIT_ACTIONS = ['wait', 'exit', 'ask'] as const;

const dollars = (description: string) =>
  setting(z.number().positive(), {
    description,
    requirement: 'an amount in US dollars > 0',
    defaultText: 'no limit',
  });

export const SAFETY_SETTINGS = {
  idleTimeoutMinutes: nonNegativeNumber({
    description: 'Minutes an agent may print nothing before it is killed (the iteration fails).',
    requirement: 'a number ≥ 0 (0: no idle timeout)',
    zeroMeans: 'off',
    default: 5,
  }),
  resultGraceSeconds: positiveNumber({
    description:
      'Seconds an agent may keep running after printing its result line before it is killed (the result still counts).',
    default: 30,
  }),
  maxLineBytes: setting(z.int().min(1024), {
    description:
      "Longest line of agent output ralph keeps, in bytes: the rest of a longer line is dropped as it arrives (the log shows the cut with a marker), so a huge line cannot fill ralph's memory.",
    requirement: 'a whole number ≥ 1024',
    default: 1_048_576,
  }),
  circuitBreaker: section(
    'When to stop a loop that is stuck (exit code 1); `ralph run --reset-breaker` closes it.',
    {
      noProgressThreshold: wholeNumber(0, {
        description:
          'Iterations in a row without a story newly passing that open the circuit breaker (a repeat of the previous error counts toward sameErrorThreshold instead).',
        zeroMeans: 'off',
        default: 3,
      }),
      sameErrorThreshold: wholeNumber(0, {
        description:
          'Iterations in a row failing with the same error (numbers, ids, paths and times ignored) that open the circuit breaker.',
        zeroMeans: 'off',
        default: 5,
      }),
      permissionDenialThreshold: wholeNumber(0, {
        description:
          'Iterations in a row without progress in which the agent was denied a tool, that open the circuit breaker.',
        zeroMeans: 'off',
        default: 2,
      }),
      cooldownMinutes: nonNegativeNumber({
        description:
          'Minutes an open circuit breaker stays open; the next run after that starts half-open (one iteration with progress closes it).',
        default: 30,
      }),
    },
  ),
  rateLimit: section(
    'A sliding one-hour window over agent calls and tokens; ralph waits at the limit.',
    {
      callsPerHour: wholeNumber(0, {
        description: 'Most agent calls (attempts) in any hour; at the limit ralph waits.',
        requirement: 'a whole number ≥ 0 (0: no limit)',
        zeroMeans: 'off',
        default: 100,
      }),
      tokensPerHour: wholeNumber(1, {
        description:
          'Most tokens (input + output + cache writes) in any hour; at the limit ralph waits.',
        defaultText: 'no limit',
      }),
    },
  ),
  budget: section('Cost limits; crossing one ends the run cleanly (exit code 1, reason budget).', {
    maxCostUsd: dollars(
      'US dollars one run may cost (from Claude Code total_cost_usd); crossing it ends the run with exit 1.',
    ),
    maxStoryCostUsd: dollars(
      'US dollars one story may cost over all its iterations, unless the story sets its own maxCostUsd; crossing it ends the run with exit 1.',
    ),
  }),
  retry: section('Retries of an iteration after a transient failure, with exponential backoff.', {
    maxRetries: wholeNumber(0, {
      description:
        'Retries of an iteration after a transient failure (API 5xx/529/429, dropped connection or MCP server, a crash before any output).',
      default: 3,
    }),
    baseDelaySeconds: nonNegativeNumber({
      description:
        'Seconds before the first retry; each further retry waits twice as long (±20 %).',
      default: 2,
    }),
    maxDelaySeconds: nonNegativeNumber({
      description: 'The longest wait between retries, in seconds.',
      default: 60,
    }),
  }),
  usageLimit: section("What to do when the Claude subscription's usage limit is reached.", {
    action: choice(USAGE_LIMIT_ACTIONS, {
      description:
        'On a usage limit: wait for the reset and resume, exit (state PAUSED, exit code 2), or ask on a terminal (exit after askTimeoutSeconds without an answer).',
      default: 'wait',
    }),
    marginSeconds: nonNegativeNumber({
      description: 'Seconds to wait past a usage limit reset time before starting again.',
      default: 60,
    }),
    firstBackoffMinutes: positiveNumber({
      description:
        'Minutes to wait on a usage limit whose reset time is unknown; doubles for each such limit in a row.',
      default: 5,
    }),
    maxBackoffMinutes: positiveNumber({
      description: 'The longest wait on a usage limit whose reset time is unknown, in minutes.',
      default: 60,
    }),
    askTimeoutSeconds: positiveNumber({
      description: 'Seconds the `ask` question waits for an answer before ralph exits.',
      default: 30,
    }),
  }),
  limits: section(
    "Pacing against the Claude subscription's usage windows (5-hour, weekly) that Claude Code reports.",
    {
      pace: setting(z.number().min(0).max(1), {
        description:
          "Do not start an iteration while a usage window is at least this used (0–1, e.g. 0.9): wait for that window's reset instead. Off by default: the usage-limit wait already handles the limit itself, and pacing gives up the rest of a window to avoid being cut off mid-iteration.",
        requirement: 'a number from 0 to 1 (0: off)',
        zeroMeans: 'off',
        default: 0,
      }),
    },
  ),
};
