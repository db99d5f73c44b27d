/**
 * QA models behind one interface (DESIGN.md "Models"): any OpenAI-compatible endpoint
 * through the `openai` package, and `lexical`, the offline deterministic baseline.
 *
 * Retries: the openai client retries 429, 408/409, 5xx, connection errors and timeouts with
 * exponential backoff, honouring Retry-After (and retry-after-ms); deltalens sets how many.
 *
 * Bounds: every request has a timeout (default 120 s); a response body over MAX_BODY_BYTES is
 * cut off and fails the call (a server cannot fill memory); an answer over MAX_ANSWER_CHARS is
 * stored cut, with a marker saying how long it was.
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

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_ANSWER_CHARS = 32 * 1024;
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The answer as stored: at most MAX_ANSWER_CHARS, with a marker when it was longer. */
export function capAnswer(text: string, max = MAX_ANSWER_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… answer truncated by deltalens: ${text.length} characters in all, ${max} kept]`;
}

/** fetch whose response bodies stop at `maxBytes` (the call then fails with a clear error). */
export function boundedFetch(maxBytes = MAX_BODY_BYTES): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    let seen = 0;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const {done, value} = await reader.read();
        if (done) {
          controller.close();
          return;
        }
        seen += value.byteLength;
        if (seen > maxBytes) {
          await reader.cancel();
          controller.error(new ModelError(`the endpoint's response is over ${maxBytes} bytes: refused`));
          return;
        }
        controller.enqueue(value);
      },
      cancel: reason => reader.cancel(reason),
    });
    return new Response(body, {status: response.status, statusText: response.statusText, headers: response.headers});
  };
}

export function openAiModel(o: OpenAiOptions): QaModel {
  const client = new OpenAI({apiKey: o.apiKey, baseURL: o.baseURL, maxRetries: o.maxRetries ?? 6, timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS, fetch: boundedFetch()});
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
      return {text: capAnswer(text), tokens: res.usage?.total_tokens ?? null, latencyMs: performance.now() - started};
    },
  };
}
