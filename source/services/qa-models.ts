/**
 * QA models behind one interface (DESIGN.md "Models"): any OpenAI-compatible endpoint
 * through the `openai` package, and `lexical`, the offline deterministic baseline.
 *
 * Retries: the openai client retries 429, 408/409, 5xx, connection errors and timeouts with
 * exponential backoff, honouring Retry-After (and retry-after-ms); deltalens sets how many.
 */
import OpenAI from 'openai';
import {lexicalAnswer} from '../core/questions/lexical.js';

export interface QaReply {
  text: string;
  tokens: number | null;
  latencyMs: number;
}

export interface QaModel {
  /** stored with every answer */
  name: string;
  /** true for baselines, which reports label as such */
  baseline: boolean;
  answer(prompt: string, signal?: AbortSignal): Promise<QaReply>;
}

export const LEXICAL = 'lexical';

export function lexicalModel(): QaModel {
  return {
    name: LEXICAL,
    baseline: true,
    async answer(prompt) {
      const started = performance.now();
      return {text: lexicalAnswer(prompt), tokens: null, latencyMs: performance.now() - started};
    },
  };
}

export interface OpenAiOptions {
  model: string;
  baseURL?: string;
  apiKey: string;
  temperature?: number;
  reasoningEffort?: string;
  maxRetries?: number;
  timeoutMs?: number;
}

export class ModelError extends Error {}

export function openAiModel(o: OpenAiOptions): QaModel {
  const client = new OpenAI({apiKey: o.apiKey, baseURL: o.baseURL, maxRetries: o.maxRetries ?? 6, timeout: o.timeoutMs ?? 120_000});
  return {
    name: o.model,
    baseline: false,
    async answer(prompt, signal) {
      const started = performance.now();
      const body: Record<string, unknown> = {model: o.model, messages: [{role: 'user', content: prompt}]};
      if (o.temperature !== undefined) body.temperature = o.temperature;
      if (o.reasoningEffort !== undefined) body.reasoning_effort = o.reasoningEffort;
      const res = (await client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, {signal})) as OpenAI.Chat.ChatCompletion;
      const text = res?.choices?.[0]?.message?.content;
      if (typeof text !== 'string') throw new ModelError(`the endpoint answered without choices[0].message.content: ${JSON.stringify(res).slice(0, 200)}`);
      return {text, tokens: res.usage?.total_tokens ?? null, latencyMs: performance.now() - started};
    },
  };
}
