/**
 * What a model reads of a failure carries no host layout: paths in the workspace become
 * relative, paths under a host directory (`/home`, `/tmp`, the workspace's own top
 * directory) are cut to their last segment, and what only looks like a path (a JSON
 * pointer, a URL's path, a path under `/usr`) is left as it is, since it is the message.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { ToolError } from "../../src/domain/errors.js"
import { detailsWithoutHostPaths, withoutHostPathDetails, withoutHostPaths } from "../../src/layers/hostPaths.js"

const root = "/srv/projects/ws"

describe("withoutHostPaths", () => {
  it("makes a workspace path relative and cuts other host paths to their last segment", () => {
    expect(withoutHostPaths("open '/srv/projects/ws/a/b.txt'", root)).toBe("open 'a/b.txt'")
    expect(withoutHostPaths("config at /home/alice/.config/app.json", root)).toBe("config at …/app.json")
    expect(withoutHostPaths("work tree is /tmp/x-1/elsewhere, not", root)).toBe("work tree is …/elsewhere, not")
    // the workspace's own top directory shows the layout too
    expect(withoutHostPaths("sibling /srv/projects/other/secret.txt", root)).toBe("sibling …/secret.txt")
  })

  it("leaves JSON pointers, URL paths and system paths alone", () => {
    expect(withoutHostPaths("no value at \"/items/5\": the array at \"/items\"", root))
      .toBe("no value at \"/items/5\": the array at \"/items\"")
    expect(withoutHostPaths("no value at \"/a~1b/m~0n/x\"", root)).toBe("no value at \"/a~1b/m~0n/x\"")
    expect(withoutHostPaths("refused http://[::ffff:a9fe:a9fe]/latest/api/token", root))
      .toBe("refused http://[::ffff:a9fe:a9fe]/latest/api/token")
    expect(withoutHostPaths("refused http://example.com/home/alice/x", root)).toBe("refused http://example.com/home/alice/x")
    expect(withoutHostPaths("spawn /usr/bin/git ENOENT", root)).toBe("spawn /usr/bin/git ENOENT")
  })

  it("leaves everything when the root is /", () => {
    expect(withoutHostPaths("/home/alice/x", "/")).toBe("/home/alice/x")
  })

  it("applies to keys and values of details", () => {
    expect(detailsWithoutHostPaths({ "/home/a/k": ["/tmp/z/v", 1, "/items/0"] }, root))
      .toEqual({ "…/k": ["…/v", 1, "/items/0"] })
  })

  describe("the top directories of this host", () => {
    const saved = { TMPDIR: process.env.TMPDIR }
    afterEach(() => {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key]
        else process.env[key] = value
      }
    })

    it("the workspace's own top directory is cut, also one no list names", () => {
      expect(withoutHostPaths("sibling /projects/other/secret.txt", "/projects/ws")).toBe("sibling …/secret.txt")
      // the same path with a workspace elsewhere says nothing of this host
      expect(withoutHostPaths("sibling /projects/other/secret.txt", "/srv/ws")).toBe("sibling /projects/other/secret.txt")
    })

    // the temp directory's top, as TMPDIR names it (`os.homedir()` reads HOME from the process's
    // own environment, which a test in a worker thread cannot change, so HOME is not varied here)
    it("so is the temp directory's top (TMPDIR)", () => {
      process.env.TMPDIR = "/scratchpad/t"
      expect(withoutHostPaths("at /scratchpad/x/y.log", "/srv/ws")).toBe("at …/y.log")
    })

    it("a message with no path in it is left as it is", () => {
      expect(withoutHostPaths("no such file", root)).toBe("no such file")
      expect(withoutHostPaths("/srv/projects/ws/a.txt", root)).toBe("a.txt")
    })
  })
})

describe("withoutHostPathDetails", () => {
  it("applies to the keys and values of a ToolError's details, and keeps the rest of it", () => {
    const cause = new Error("underneath")
    const error = new ToolError({
      tool: "t",
      message: "failed at /home/a/x.txt",
      cause,
      details: { "/home/a/k": { path: "/srv/projects/ws/b/c.txt", list: ["/tmp/z/v", 2] } }
    })
    const shown = withoutHostPathDetails(error, root)
    expect(shown.details).toEqual({ "…/k": { path: "b/c.txt", list: ["…/v", 2] } })
    expect(shown.tool).toBe("t")
    // the message is shown through withoutHostPaths where it is read, not rewritten here
    expect(shown.message).toBe("failed at /home/a/x.txt")
    expect(shown.cause).toBe(cause)
  })

  it("returns an error without details as it is", () => {
    const error = new ToolError({ tool: "t", message: "m" })
    expect(withoutHostPathDetails(error, root)).toBe(error)
  })
})
