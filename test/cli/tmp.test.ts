import { it } from "vitest"
import { cliInProcess } from "./helpers.js"
it("x", async () => {
  for (const args of [["--version"], ["list", "--version"], ["list"], ["describe", "read_file"], ["call", "read_file", "{not"], ["docs", "--check", "--file", "README.md"]]) {
    const r = await cliInProcess(...args)
    console.log(JSON.stringify(args), r.code, JSON.stringify(r.stdout.slice(0, 700)), JSON.stringify(r.stderr.slice(0, 300)))
  }
}, 60000)
