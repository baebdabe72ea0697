/**
 * The reading tools' shared words (`reading/common.ts`) as pure functions: a walk's closing
 * notes in the singular and the plural, how a name with control characters is shown, and a
 * long line cut around a match.
 */
import { describe, expect, it } from "@effect/vitest"
import { around, plural, shownName, walkNotes } from "../../../../src/tools/ported/reading/common.js"

describe("walkNotes", () => {
  it("says nothing for a clean walk; counts links and directories in the singular and the plural", () => {
    expect(walkNotes({ stopped: false, linksOut: 0, unreadable: 0 })).toEqual([])
    expect(walkNotes({ stopped: true, linksOut: 1, unreadable: 1 })).toEqual([
      "(1 symbolic link not followed: it leads out of the workspace or to nothing)",
      "(1 directory could not be listed (changed meanwhile, or no permission) and was skipped)"
    ])
    expect(walkNotes({ stopped: false, linksOut: 3, unreadable: 2 })).toEqual([
      "(3 symbolic links not followed: they lead out of the workspace or to nothing)",
      "(2 directories could not be listed (changed meanwhile, or no permission) and were skipped)"
    ])
    expect(walkNotes({ stopped: false, linksOut: 0, unreadable: 4 })).toHaveLength(1)
    expect(plural(0, "entry", "entries")).toBe("0 entries")
  })
})

describe("shownName and around", () => {
  it("quotes a name with a control character (DEL included), and only then", () => {
    expect(shownName("plain name.txt")).toBe("plain name.txt")
    expect(shownName("é 😀")).toBe("é 😀")
    expect(shownName("two\nlines")).toBe("\"two\\nlines\"")
    expect(shownName("tab\there")).toBe("\"tab\\there\"")
    expect(shownName("del\u007f")).toBe("\"del\\u007f\"")
    expect(shownName("unit\u001f")).toBe("\"unit\\u001f\"")
  })

  it("keeps a line of at most max characters; cuts a longer one around the match, a third before it, with ellipses", () => {
    const line = "0123456789".repeat(10)
    expect(around("short", 2, 5)).toBe("short")
    expect(around(line, 50, 100)).toBe(line)
    // a third of the window (10 of 30) before the match at 50
    expect(around(line, 50, 30)).toBe(`…${line.slice(40, 70)}…`)
    // near the start: no ellipsis before
    expect(around(line, 5, 30)).toBe(`${line.slice(0, 30)}…`)
    // near the end: the window ends at the line's end, no ellipsis after
    expect(around(line, 99, 30)).toBe(`…${line.slice(70)}`)
    expect(around(line, 80, 30)).toBe(`…${line.slice(70)}`)
    expect(around(line, 79, 30)).toBe(`…${line.slice(69, 99)}…`)
  })
})
