/**
 * A server process's stderr in volume: 600 MB of it (`node -e`, a real child process, which
 * writes it all and exits) is drained into a short tail (about 500 characters) for messages,
 * not kept. In the slow lane: the host reads all 600 MB, about 1.4 s of CPU. The rest of
 * `startServerProcess`'s tests are in `process.test.ts`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { node, start, until } from "./processHarness.js"

describe("startServerProcess", () => {
  it.live("stderr: 600 MB of it is drained into a short tail, not kept", () =>
    Effect.gen(function*() {
      const server = yield* start(node(
        `const line = Buffer.alloc(1 << 20, 0x78); let n = 0;
         const more = () => { while (n < 600) { n++; if (!process.stderr.write(line)) return process.stderr.once("drain", more) }
           process.stderr.write("\\nlast line\\n") };
         more()`
      ))
      expect(yield* server.exited).toBe("exited with code 0")
      expect(yield* until(server.stderrTail, (tail) => tail.endsWith("last line"))).toMatch(/^….*x last line$/)
      expect(server.stderrTail().length).toBeLessThanOrEqual(501)
    }), 60_000)
})
