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
import OpenAI, {toFile} from 'openai';
import {lexicalAnswer} from '../core/questions/lexical.js';

interface QaReply {
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
  /** its Batch API (models at an endpoint; none for the offline baseline) */
  batch?: BatchEndpoint;
}

const LEXICAL = 'lexical';

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

interface OpenAiOptions {
  model: string;
  baseURL?: string;
  apiKey: string;
  temperature?: number;
  reasoningEffort?: string;
  maxRetries?: number;
  timeoutMs?: number;
}

class ModelError extends Error {}

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_ANSWER_CHARS = 32 * 1024;
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** The answer as stored: at most MAX_ANSWER_CHARS, with a marker when it was longer. */
export function capAnswer(text: string, max = MAX_ANSWER_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… answer truncated by deltalens: ${text.length} characters in all, ${max} kept]`;
}

/** fetch whose response bodies stop at `maxBytes` (the call then fails with a clear error). */
function boundedFetch(maxBytes = MAX_BODY_BYTES): typeof fetch {
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

/** The chat-completions request a prompt makes (online, or as a line of a batch). */
function chatBody(o: OpenAiOptions, prompt: string): Record<string, unknown> {
  const body: Record<string, unknown> = {model: o.model, messages: [{role: 'user', content: prompt}]};
  if (o.temperature !== undefined) body.temperature = o.temperature;
  if (o.reasoningEffort !== undefined) body.reasoning_effort = o.reasoningEffort;
  return body;
}

export function openAiModel(o: OpenAiOptions): QaModel {
  const client = new OpenAI({
    apiKey: o.apiKey,
    baseURL: o.baseURL,
    maxRetries: o.maxRetries ?? 6,
    timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    fetch: boundedFetch(),
  });
  return {
    name: o.model,
    baseline: false,
    batch: batchEndpoint(o),
    async answer(prompt, signal) {
      const started = performance.now();
      const body = chatBody(o, prompt);
      const res = (await client.chat.completions.create(
        body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
        {signal},
      )) as OpenAI.Chat.ChatCompletion;
      const text = res?.choices?.[0]?.message?.content;
      if (typeof text !== 'string')
        throw new ModelError(
          `the endpoint answered without choices[0].message.content: ${JSON.stringify(res).slice(0, 200)}`,
        );
      return {text: capAnswer(text), tokens: res.usage?.total_tokens ?? null, latencyMs: performance.now() - started};
    },
  };
}

/** What the endpoint says of a batch. */
export interface BatchState {
  id: string;
  status: string;
  total: number;
  completed: number;
  failed: number;
  outputFile: string | null;
  errorFile: string | null;
  error: string | null;
}

/** An OpenAI-compatible Batch API (its files and batches endpoints), for one model's requests. */
export interface BatchEndpoint {
  model: string;
  /** the base URL (null: OpenAI's) */
  endpoint: string | null;
  /** a batch line's request body for a prompt: the same as an online call's */
  body(prompt: string): Record<string, unknown>;
  /** a JSONL file of requests uploaded; its file id */
  upload(jsonl: string, filename: string, signal?: AbortSignal): Promise<string>;
  create(inputFile: string, signal?: AbortSignal): Promise<BatchState>;
  retrieve(id: string, signal?: AbortSignal): Promise<BatchState>;
  /** a result file's text */
  content(fileId: string, signal?: AbortSignal): Promise<string>;
}

/** A batch's result files are larger than any one answer: bounded, but far higher. */
const MAX_BATCH_FILE_BYTES = 1024 * 1024 * 1024;

function batchState(b: OpenAI.Batches.Batch): BatchState {
  const errors = b.errors?.data?.map(e => e.message).filter(Boolean) ?? [];
  return {
    id: b.id,
    status: b.status,
    total: b.request_counts?.total ?? 0,
    completed: b.request_counts?.completed ?? 0,
    failed: b.request_counts?.failed ?? 0,
    outputFile: b.output_file_id ?? null,
    errorFile: b.error_file_id ?? null,
    error: errors.length ? errors.join('; ') : null,
  };
}

function batchEndpoint(o: OpenAiOptions): BatchEndpoint {
  const client = new OpenAI({
    apiKey: o.apiKey,
    baseURL: o.baseURL,
    maxRetries: o.maxRetries ?? 6,
    timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    fetch: boundedFetch(MAX_BATCH_FILE_BYTES),
  });
  return {
    model: o.model,
    endpoint: o.baseURL ?? null,
    body: prompt => chatBody(o, prompt),
    async upload(jsonl, filename, signal) {
      const file = await toFile(Buffer.from(jsonl, 'utf8'), filename, {type: 'application/jsonl'});
      return (await client.files.create({file, purpose: 'batch'}, {signal})).id;
    },
    async create(inputFile, signal) {
      const b = await client.batches.create(
        {input_file_id: inputFile, endpoint: '/v1/chat/completions', completion_window: '24h'},
        {signal},
      );
      return batchState(b);
    },
    async retrieve(id, signal) {
      return batchState(await client.batches.retrieve(id, {signal}));
    },
    async content(fileId, signal) {
      return (await client.files.content(fileId, {signal})).text();
    },
  };
}

/** What picks a QA model: the same for `score` (flags) and the explorer (environment). */
interface QaModelChoice {
  /** the model name; lexical (the default) is the offline baseline */
  model?: string;
  /** the OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else OpenAI's) */
  baseUrl?: string;
  /** the variable holding the key (default OPENAI_API_KEY) */
  apiKeyEnv?: string;
  temperature?: number;
  reasoningEffort?: string;
  maxRetries?: number;
  timeoutMs?: number;
}

/** A choice that cannot make a model (no key): one line saying what to set. */
export class QaModelChoiceError extends Error {}

/** What is sent as the key to a server of one's own that asks none (a local model server). */
const NO_KEY = 'no-key';

/** The key of a model at an OpenAI-compatible endpoint, from $keyVar; when it is not set, one line
 * saying what to set (`who` names the model: "the QA model m") — unless the endpoint is another
 * server than OpenAI's (`baseURL`): a local model server asks no key, so none is needed. */
export function apiKeyOf(
  who: string,
  keyVar = 'OPENAI_API_KEY',
  env: NodeJS.ProcessEnv = process.env,
  hint = '',
  baseURL?: string,
): string {
  const key = env[keyVar];
  if (key) return key;
  if (baseURL && !/^https?:\/\/([^/]*\.)?openai\.com(\/|$)/i.test(baseURL)) return NO_KEY;
  throw new QaModelChoiceError(`${who} needs an API key in $${keyVar}${hint ? ` ${hint}` : ''}`);
}

/**
 * The QA model a choice names: lexical offline, anything else through the openai package at
 * an OpenAI-compatible endpoint. A model without its key is refused here, before any call.
 */
export function qaModelFrom(
  choice: QaModelChoice,
  env: NodeJS.ProcessEnv = process.env,
  hint = '(or --api-key-env VAR)',
): QaModel {
  const name = choice.model ?? LEXICAL;
  if (name === LEXICAL) return lexicalModel();
  const baseURL = choice.baseUrl ?? env.OPENAI_BASE_URL;
  const apiKey = apiKeyOf(`the QA model ${name}`, choice.apiKeyEnv, env, hint, baseURL);
  return openAiModel({
    model: name,
    baseURL,
    apiKey,
    temperature: choice.temperature,
    reasoningEffort: choice.reasoningEffort,
    maxRetries: choice.maxRetries,
    timeoutMs: choice.timeoutMs,
  });
}

/** The explorer's choice: $DELTALENS_QA_MODEL, $DELTALENS_QA_KEY_ENV, $OPENAI_BASE_URL. */
export function explorerQaChoice(env: NodeJS.ProcessEnv = process.env): QaModelChoice {
  return {model: env.DELTALENS_QA_MODEL || undefined, apiKeyEnv: env.DELTALENS_QA_KEY_ENV || undefined};
}
