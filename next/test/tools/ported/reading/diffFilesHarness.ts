/**
 * What `diffFiles.test.ts` and `diffFiles.slow.test.ts` share: diff_files in a workspace of small
 * text files (and a link to a file outside it), and `lines`, numbered text lines.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { call, fileWorkspace } from "./harness.js"

export const lines = (n: number, change?: (i: number) => string | undefined) =>
  Array.from({ length: n }, (_, i) => `${change?.(i + 1) ?? `line ${i + 1}`}\n`).join("")

/**
 * The test file's workspace (`fileWorkspace`: call it at the file's top level) and
 * `diff(args)`, diff_files there.
 */
export const diffFilesWorkspace = () => {
  const fixture = fileWorkspace("diff-files-", ({ outside, write, ws }) => {
    write("a.txt", "one\ntwo\nthree\n")
    write("b.txt", "one\n2\nthree\n")
    write("copy.txt", "one\ntwo\nthree\n")
    write("no-final.txt", "one\ntwo\nthree")
    write("crlf.txt", "one\r\ntwo\r\nthree\r\n")
    write("unicode-a.txt", "héllo\n🙂\n")
    write("unicode-b.txt", "héllo\n🙃\n")
    write("empty.txt", "")
    write("long-a.txt", lines(40))
    write("long-b.txt", lines(40, (i) => (i === 5 || i === 30 ? `changed ${i}` : undefined)))
    write("bin.dat", Buffer.from([0, 1, 2, 3]))
    write("dir/x.txt", "x\n")
    Fs.writeFileSync(Path.join(outside, "secret.txt"), "one\n")
    Fs.symlinkSync(Path.join(outside, "secret.txt"), Path.join(ws, "out.txt"))
  })
  return { fixture, diff: (args: Record<string, unknown>) => call(fixture.ws, "diff_files", args) }
}
