import type { Spend } from '../../core/events.js';

/** Tokens as the monitors add them up (the agent's TokenUsage, with shorter names). */
export interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** The agent's TokenUsage as events carry it. */
type Usage = Spend['tokens'];

export const NO_TOKENS: Tokens = { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };

export function tokensOf(usage: Usage | undefined): Tokens | undefined {
  if (usage === undefined) return undefined;
  return {
    input: usage.inputTokens,
    output: usage.outputTokens,
    cacheRead: usage.cacheReadInputTokens,
    cacheCreation: usage.cacheCreationInputTokens,
  };
}

export function addTokens(a: Tokens, b: Tokens | undefined): Tokens {
  if (b === undefined) return a;
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheCreation: a.cacheCreation + b.cacheCreation,
  };
}

export function totalTokens(tokens: Tokens): number {
  return tokens.input + tokens.output + tokens.cacheRead + tokens.cacheCreation;
}
