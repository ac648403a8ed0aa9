/**
 * The scripted model of the host end-to-end tests (issue 30): a model server of our own on
 * loopback replays a script, one step per model request, and records every request it receives,
 * so a test can assert what the host showed the model (the system prompt, a hook's injected block,
 * a tool's result) and drive the host into calling memtier's tools. Two wire formats serve it:
 * anthropic-stub.ts (Anthropic Messages API, for Claude Code) and openai-stub.ts (OpenAI chat
 * completions and Responses API, for Codex and OpenClaw's custom providers).
 *
 * Nothing here reaches the network: the servers listen on 127.0.0.1 only, on a free port.
 */
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';

/** One tool call the model makes: the host runs it and sends the result in its next request. */
export interface ScriptToolCall {
  /** The tool's name as the host lists it (Claude Code: `mcp__memtier__memory_search`; Codex/OpenClaw: as they name it). A function gets the request's tool names and picks one (hosts prefix MCP tools differently). */
  name: string | ((toolNames: string[]) => string);
  input: Record<string, unknown>;
}

/** What the model answers to one request: text, tool calls, or both (text first). */
export interface ScriptStep {
  text?: string;
  toolCalls?: ScriptToolCall[];
  /**
   * Optional check of the request this step answers (throw to fail: the error is recorded and the
   * step still answered, so the host ends normally and the test reports the error).
   */
  expect?: (req: RecordedRequest) => void;
}

/** A request as the stub received it, with the text the host showed the model flattened for asserts. */
export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** The system prompt(s) and every message's text, tool results included, joined with newlines. */
  allText: string;
  /** The names of the tools offered in this request. */
  toolNames: string[];
  /** Which script step answered it (-1: past the end of the script: a plain "done." answer). */
  step: number;
}

/** `RecordedRequest.step` of a side request (answered without consuming a step), in both stubs. */
export const SIDE_STEP = -2;

export interface StubServer {
  /** Base URL to give the host (http://127.0.0.1:PORT, with the path prefix the format needs). */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Errors thrown by steps' `expect` checks. */
  errors: Error[];
  /** Replace the script (and restart its step count) between turns of one test. */
  setScript(steps: ScriptStep[]): void;
  close(): Promise<void>;
}

/** The next step of a script; past its end, a plain answer that ends the turn. */
export function stepAt(steps: ScriptStep[], i: number): ScriptStep {
  return steps[i] ?? { text: 'done.' };
}

/** A tool name to call given the names offered: an exact match, else the one ending in `__NAME` or `.NAME` or `_NAME`. */
export function pickTool(offered: string[], want: string): string {
  if (offered.includes(want)) return want;
  const hit = offered.find((n) => n.endsWith(`__${want}`) || n.endsWith(`.${want}`) || n.endsWith(`_${want}`));
  return hit ?? want;
}

/** A request's whole body. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

/** A request body as sent: a host may compress it (zstd where this Node has it, gzip, br, deflate). */
export function decodeBody(b: Buffer, enc: string | string[] | undefined): Buffer {
  const e = String(enc ?? '').trim().toLowerCase();
  if (!e || e === 'identity') return b;
  if (e === 'gzip') return zlib.gunzipSync(b);
  if (e === 'deflate') return zlib.inflateSync(b);
  if (e === 'br') return zlib.brotliDecompressSync(b);
  const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync;
  if (e === 'zstd' && zstd) return zstd(b);
  throw new Error(`content-encoding ${e} is not supported by this Node`);
}
