/**
 * The id of an MCP message too long to read whole (lib/mcp/server.ts topLevelId), from its first
 * KiB: the top-level "id" only, never one nested in the params; null when it cannot be told.
 */
import { describe, expect, it } from 'vitest';
import { topLevelId } from '../../lib/mcp/server.js';

const id = (s: string): unknown => topLevelId(Buffer.from(s));

describe('topLevelId', () => {
  it('reads a top-level number or string id', () => {
    expect(id('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"query":"aaa')).toBe(7);
    expect(id('{ "id" : "req-\\"1\\"" , "method":"x"')).toBe('req-"1"');
    expect(id('{"method":"x","id":-3}')).toBe(-3);
  });
  it('never takes an id nested in the params, nor a string value "id"', () => {
    expect(id('{"jsonrpc":"2.0","method":"tools/call","params":{"id":9,"query":"aaaa')).toBeNull();
    expect(id('{"method":"id","params":{"x":"y"}')).toBeNull();
    expect(id('{"jsonrpc":"2.0","params":{"text":"\\"id\\":5"},"id":4}')).toBe(4);
  });
  it('null when the id is cut off, not a number or string, or absent', () => {
    expect(id('{"jsonrpc":"2.0","id":12')).toBeNull();
    expect(id('{"id":{"a":1}}')).toBeNull();
    expect(id('not json at all')).toBeNull();
  });
});
