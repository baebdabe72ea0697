/**
 * What a model reads of a failure carries no host layout: paths in the workspace become
 * relative, paths under a host directory (`/home`, `/tmp`, the workspace's own top
 * directory) are cut to their last segment, and what only looks like a path (a JSON
 * pointer, a URL's path, a path under `/usr`) is left as it is, since it is the message.
 */
import { describe, expect, it } from "@effect/vitest"
import { detailsWithoutHostPaths, withoutHostPaths } from "../../src/layers/hostPaths.js"

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
})
