/**
 * A real local HTTP server speaking the OpenAI chat-completions API, scripted per call:
 * answers, delays, 429 with Retry-After, 500s, malformed bodies.
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

export async function startOpenAiServer(script: (call: Call) => Reply) {
  const calls: Call[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let data = '';
    req.on('data', c => (data += c));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
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
      } else {
        const tools = 'toolCalls' in reply;
        const message = tools
          ? {
              role: 'assistant',
              content: reply.content ?? null,
              tool_calls: reply.toolCalls.map((c, i) => ({
                id: `call-${call.index}-${i}`,
                type: 'function',
                function: c,
              })),
            }
          : {role: 'assistant', content: reply.answer};
        const usage = tools
          ? {prompt_tokens: 100, completion_tokens: 20, total_tokens: reply.tokens ?? 120}
          : {prompt_tokens: 10, completion_tokens: 1, total_tokens: reply.tokens ?? 11};
        res.writeHead(200, {'content-type': 'application/json'}).end(
          JSON.stringify({
            id: `cmpl-${call.index}`,
            object: 'chat.completion',
            created: 0,
            model: String(body['model' as keyof typeof body] ?? 'm'),
            choices: [{index: 0, message, finish_reason: tools ? 'tool_calls' : 'stop'}],
            usage,
          }),
        );
      }
    });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    close: () => new Promise<void>(r => server.close(() => r())),
  };
}

/** The display letter of the option whose text contains `needle`, in a prompt. */
export function letterOf(prompt: string, needle: string): string {
  const m = [...prompt.matchAll(/^([A-Z])\. (.*)$/gm)].find(x => x[2]!.includes(needle));
  if (!m) throw new Error(`no option containing "${needle}"`);
  return m[1]!;
}
