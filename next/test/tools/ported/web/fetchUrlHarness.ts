/**
 * What `fetchUrl.test.ts` and `fetchUrl.slow.test.ts` share: a fetch_url call through the
 * executor, and a local server to fetch from.
 */
import * as Os from "node:os"
import { fetchUrl } from "../../../../src/tools/ported/web/fetchUrl.js"
import { type Respond, testServer } from "../../../helpers/httpServer.js"
import { callTool, type WebSystem } from "./support.js"

const system: WebSystem = { dir: Os.tmpdir(), tools: [fetchUrl] }

/** fetch_url with `args`, in a system with fetch_url (or `over`'s tools) and the temp directory as workspace. */
export const fetchWith = (args: unknown, over: Partial<WebSystem> = {}) => callTool({ ...system, ...over }, "fetch_url", args)

/** A server answering every request with `respond`, and its origin. */
export const serve = (respond: Respond) => testServer(respond)
