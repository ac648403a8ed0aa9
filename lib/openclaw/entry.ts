/**
 * The OpenClaw plugin's entry (package.json `openclaw.extensions`): the plugin (plugin.ts) with the
 * CLI's main() handed in, as `memtier watch` and `memtier mcp` get it. Like lib/cli/main.ts it sits
 * above every layer.
 */
import { main, version } from '../cli/main.js';
import { createPlugin } from './plugin.js';

export default createPlugin(main, version());
