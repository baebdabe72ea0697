/**
 * The package's version: what the command line's `--version` prints and what the MCP server
 * and client announce. A constant, not a read of package.json at import time;
 * `test/version.test.ts` checks it against package.json.
 */
export const VERSION = "1.0.0"
