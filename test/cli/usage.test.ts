/**
 * What the command line prints itself, run in process: the help page on stdout (exit 0), and a
 * usage error as its messages alone on stderr, one a line, nothing on stdout (exit 2).
 */
import { describe, expect, it } from "@effect/vitest"
import { cliInProcess as cli } from "./helpers.js"

describe("help and usage errors", { timeout: 60_000 }, () => {
  it("--help prints the help page on stdout and exits 0", async () => {
    const { code, stdout, stderr } = await cli("--help")
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
    expect(stdout).toContain("USAGE\n  effect-tool-system <subcommand> [flags]")
    expect(stdout).toContain("List, describe, call, explain and export the tools of effect-tool-system")
  })

  it("a command's --help is its page, even beside a flag it does not know", async () => {
    const { code, stdout, stderr } = await cli("list", "--help", "--bogus")
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" })
    expect(stdout).toContain("USAGE\n  effect-tool-system list [flags]")
  })

  it("a usage error prints each problem on its own line on stderr, nothing on stdout, and exits 2", async () => {
    expect(await cli("list", "--bogus", "--other")).toEqual({
      code: 2,
      stdout: "",
      stderr: "Unrecognized flag: --bogus in command effect-tool-system list\n" +
        "Unrecognized flag: --other in command effect-tool-system list\n"
    })
    expect(await cli("nonsense")).toEqual({
      code: 2,
      stdout: "",
      stderr: "Unknown subcommand \"nonsense\" for \"effect-tool-system\"\n"
    })
  })
})
