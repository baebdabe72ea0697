/**
 * Messages name workspace-relative paths: the root's absolute path is taken out of a message,
 * a path under it becomes relative and the root itself `.`; a root of `/` is left alone.
 */
import { describe, expect, it } from "@effect/vitest"
import { relativeToRoot } from "../../src/layers/relativeToRoot.js"

describe("relativeToRoot", () => {
  it("turns a path under the root into a workspace-relative one", () => {
    expect(relativeToRoot("ENOENT: no such file, open '/srv/ws/sub/a.txt'", "/srv/ws")).toBe(
      "ENOENT: no such file, open 'sub/a.txt'"
    )
    expect(relativeToRoot("/srv/ws/a and /srv/ws/b/c", "/srv/ws")).toBe("a and b/c")
  })

  it("names the root itself `.`", () => {
    expect(relativeToRoot("cannot list /srv/ws", "/srv/ws")).toBe("cannot list .")
    expect(relativeToRoot("/srv/ws is read-only; /srv/ws/x too", "/srv/ws")).toBe(". is read-only; x too")
  })

  it("leaves a message without the root as it is", () => {
    expect(relativeToRoot("no such file: /etc/passwd", "/srv/ws")).toBe("no such file: /etc/passwd")
    expect(relativeToRoot("it broke", "/srv/ws")).toBe("it broke")
  })

  it("leaves every path alone when the root is /", () => {
    expect(relativeToRoot("no such file: /etc/passwd", "/")).toBe("no such file: /etc/passwd")
    expect(relativeToRoot("a/b // c /", "/")).toBe("a/b // c /")
  })
})

describe("relativeToRoot, paths that only start like the root", () => {
  it("leaves a sibling whose name extends the root's alone", () => {
    expect(relativeToRoot("open '/srv/ws2/x'", "/srv/ws")).toBe("open '/srv/ws2/x'")
    expect(relativeToRoot("/srv/ws.bak and /srv/ws-old/a", "/srv/ws")).toBe("/srv/ws.bak and /srv/ws-old/a")
  })

  it("takes out the root at the end of a sentence", () => {
    expect(relativeToRoot("cannot list /srv/ws.", "/srv/ws")).toBe("cannot list ..")
    expect(relativeToRoot("(/srv/ws)", "/srv/ws")).toBe("(.)")
  })

  it("leaves a path that holds the root deeper down alone", () => {
    expect(relativeToRoot("copied to /mnt/srv/ws/a", "/srv/ws")).toBe("copied to /mnt/srv/ws/a")
  })

  it("takes out a root with characters that are special in a pattern", () => {
    expect(relativeToRoot("open '/tmp/a+b (1)/x.txt'", "/tmp/a+b (1)")).toBe("open 'x.txt'")
  })
})
