/**
 * A real local HTTP server speaking the OpenAI chat-completions API, scripted per call:
 * answers, delays, 429 with Retry-After, 500s, malformed bodies — and its files and batches
 * endpoints (a batch's requests answered by the same script, a few per look at the batch).
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';

export interface Call {
  index: number;
  prompt: string;
  body: Record<string, unknown>;
  at: number;
}

export type Reply =
  | {answer: string; delayMs?: number; tokens?: number}
  /** an assistant message calling tools (arguments as the model wrote them: maybe not JSON) */
  | {toolCalls: {name: string; arguments: string}[]; content?: string; tokens?: number}
  | {status: number; headers?: Record<string, string>; body?: string; delayMs?: number}
  | {malformed: string};

interface BatchOptions {
  /** requests answered per look at a running batch (default: all at the first) */
  step?: number;
  /** the batch ends so after this many requests were answered (an endpoint's 24 h ran out) */
  endAs?: {status: 'expired' | 'cancelled'; after: number};
  /** answers to the batch endpoints themselves: scripted failures (a 429 on a look) */
  onRequest?: (what: 'upload' | 'create' | 'retrieve' | 'content', index: number) => Reply | null;
}

interface FakeBatch {
  id: string;
  input: string[];
  done: number;
  status: string;
  output: string[];
  errors: string[];
  outputFile: string | null;
  errorFile: string | null;
}

/** The chat completion a scripted answer makes. */
function completion(call: Call, reply: Exclude<Reply, {status: number} | {malformed: string}>) {
  const tools = 'toolCalls' in reply;
  const message = tools
    ? {
        role: 'assistant',
        content: reply.content ?? null,
        tool_calls: reply.toolCalls.map((c, i) => ({id: `call-${call.index}-${i}`, type: 'function', function: c})),
      }
    : {role: 'assistant', content: reply.answer};
  const usage = tools
    ? {prompt_tokens: 100, completion_tokens: 20, total_tokens: reply.tokens ?? 120}
    : {prompt_tokens: 10, completion_tokens: 1, total_tokens: reply.tokens ?? 11};
  return {
    id: `cmpl-${call.index}`,
    object: 'chat.completion',
    created: 0,
    model: String(call.body.model ?? 'm'),
    choices: [{index: 0, message, finish_reason: tools ? 'tool_calls' : 'stop'}],
    usage,
  };
}

/** The file part of a multipart/form-data body. */
function multipartFile(body: string, contentType: string): string | null {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  if (!boundary) return null;
  for (const part of body.split(`--${boundary}`)) {
    if (!/name="file"/.test(part)) continue;
    const start = part.indexOf('\r\n\r\n');
    return start < 0 ? null : part.slice(start + 4).replace(/\r\n$/, '');
  }
  return null;
}

export async function startOpenAiServer(script: (call: Call) => Reply, batchOptions: BatchOptions = {}) {
  const calls: Call[] = [];
  const files = new Map<string, string>();
  const batches = new Map<string, FakeBatch>();
  const counts = {upload: 0, create: 0, retrieve: 0, content: 0};
  const tag = Math.random().toString(36).slice(2, 8);
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify(body));
  const batchObject = (b: FakeBatch) => ({
    id: b.id,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    input_file_id: 'file',
    completion_window: '24h',
    status: b.status,
    created_at: 0,
    output_file_id: b.outputFile ?? undefined,
    error_file_id: b.errorFile ?? undefined,
    request_counts: {
      total: b.input.length,
      completed: b.output.length,
      failed: b.errors.length,
    },
  });
  /** A look at a running batch answers the next `step` requests; all answered (or its end), it completes. */
  const advance = (b: FakeBatch) => {
    if (b.status === 'validating') {
      b.status = 'in_progress';
      return;
    }
    if (b.status !== 'in_progress') return;
    const step = batchOptions.step ?? b.input.length;
    for (let n = 0; n < step && b.done < b.input.length; n++) {
      if (batchOptions.endAs && b.done >= batchOptions.endAs.after) break;
      const line = JSON.parse(b.input[b.done]!) as {custom_id: string; body: {messages: {content: string}[]}};
      b.done += 1;
      const call: Call = {index: calls.length, prompt: line.body.messages[0]!.content, body: line.body, at: Date.now()};
      calls.push(call);
      const reply = script(call);
      if ('status' in reply || 'malformed' in reply) {
        const status = 'status' in reply ? reply.status : 200;
        b.errors.push(
          JSON.stringify({
            id: `req-${call.index}`,
            custom_id: line.custom_id,
            response: {status_code: status, body: {error: {message: `scripted ${status}`}}},
            error: null,
          }),
        );
      } else
        b.output.push(
          JSON.stringify({
            id: `req-${call.index}`,
            custom_id: line.custom_id,
            response: {status_code: 200, body: completion(call, reply)},
            error: null,
          }),
        );
    }
    const ended = batchOptions.endAs && b.done >= batchOptions.endAs.after && b.done < b.input.length;
    if (b.done >= b.input.length || ended) {
      b.status = ended ? batchOptions.endAs!.status : 'completed';
      if (b.output.length) files.set((b.outputFile = `file-out-${b.id}`), `${b.output.join('\n')}\n`);
      if (b.errors.length) files.set((b.errorFile = `file-err-${b.id}`), `${b.errors.join('\n')}\n`);
    }
  };
  const scripted = (what: keyof typeof counts, res: ServerResponse): boolean => {
    const reply = batchOptions.onRequest?.(what, counts[what]) ?? null;
    counts[what] += 1;
    if (!reply) return false;
    if ('status' in reply)
      res
        .writeHead(reply.status, {'content-type': 'application/json', ...reply.headers})
        .end(reply.body ?? JSON.stringify({error: {message: `scripted ${reply.status}`}}));
    else res.writeHead(500).end('{"error": {"message": "unsupported scripted reply"}}');
    return true;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let data = '';
    req.on('data', c => (data += c));
    req.on('end', async () => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url.endsWith('/files')) {
        if (scripted('upload', res)) return;
        const text = multipartFile(data, String(req.headers['content-type'] ?? ''));
        if (text === null) return json(res, 400, {error: {message: 'no file part'}});
        const id = `file-${files.size + 1}`;
        files.set(id, text);
        return json(res, 200, {
          id,
          object: 'file',
          bytes: text.length,
          created_at: 0,
          filename: 'x',
          purpose: 'batch',
          status: 'processed',
        });
      }
      const content = /\/files\/([^/]+)\/content$/.exec(url);
      if (req.method === 'GET' && content) {
        if (scripted('content', res)) return;
        const text = files.get(content[1]!);
        if (text === undefined) return json(res, 404, {error: {message: 'no such file'}});
        return res.writeHead(200, {'content-type': 'application/octet-stream'}).end(text);
      }
      if (req.method === 'POST' && url.endsWith('/batches')) {
        if (scripted('create', res)) return;
        const body = JSON.parse(data) as {input_file_id: string};
        const input = files.get(body.input_file_id);
        if (input === undefined) return json(res, 400, {error: {message: 'no such input file'}});
        // ids unique across servers, as an endpoint's are
        const id = `batch_${tag}_${batches.size + 1}`;
        const b: FakeBatch = {
          id,
          input: input.split('\n').filter(Boolean),
          done: 0,
          status: 'validating',
          output: [],
          errors: [],
          outputFile: null,
          errorFile: null,
        };
        batches.set(id, b);
        return json(res, 200, batchObject(b));
      }
      const look = /\/batches\/([^/]+)$/.exec(url);
      if (req.method === 'GET' && look) {
        if (scripted('retrieve', res)) return;
        const b = batches.get(look[1]!);
        if (!b) return json(res, 404, {error: {message: 'no such batch'}});
        advance(b);
        return json(res, 200, batchObject(b));
      }
      if (req.method !== 'POST' || !url.endsWith('/chat/completions')) {
        res.writeHead(404).end('{"error": {"message": "not found"}}');
        return;
      }
      const body = JSON.parse(data) as {messages: {content: string}[]};
      const call: Call = {index: calls.length, prompt: body.messages[0]!.content, body, at: Date.now()};
      calls.push(call);
      const reply = script(call);
      if ('delayMs' in reply && reply.delayMs) await new Promise(r => setTimeout(r, reply.delayMs));
      if ('malformed' in reply) {
        res.writeHead(200, {'content-type': 'application/json'}).end(reply.malformed);
      } else if ('status' in reply) {
        res
          .writeHead(reply.status, {'content-type': 'application/json', ...reply.headers})
          .end(reply.body ?? JSON.stringify({error: {message: `scripted ${reply.status}`}}));
      } else json(res, 200, completion(call, reply));
    });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    batches,
    counts,
    close: () => new Promise<void>(r => server.close(() => r())),
  };
}

/** The display letter of the option whose text contains `needle`, in a prompt. */
export function letterOf(prompt: string, needle: string): string {
  const m = [...prompt.matchAll(/^([A-Z])\. (.*)$/gm)].find(x => x[2]!.includes(needle));
  if (!m) throw new Error(`no option containing "${needle}"`);
  return m[1]!;
}
