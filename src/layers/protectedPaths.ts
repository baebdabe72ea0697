/**
 * Paths no tool with side effects may touch: anything under a `.git` of the workspace (the root's
 * or a nested repository's). A file tool that could write there could plant a hook, a
 * `core.fsmonitor`, a `.git` file naming another repository or an alternates entry, and git (the
 * git tools, the user's own shell) would then run or trust it. The check is on the resolved path
 * (symbolic links followed, so a link to `.git` is caught) relative to the workspace root, one
 * component at a time, and compares the way case-insensitive file systems do: `.GIT` is `.git`
 * there, and so are `.git.`/`.git ` (NTFS drops trailing dots and spaces) and `.g\u200cit`
 * (HFS+ ignores some zero-width code points), as git itself treats them (`is_ntfs_dotgit`,
 * `is_hfs_dotgit`).
 *
 * The executor applies it to every path argument of a tool that is not `readOnly` (before any
 * gate: a refused call changes nothing); `restore_snapshot` applies it to the path it reads from
 * snapshot metadata. Read-only tools still read there.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodePath from "node:path"
import { ProtectedPath } from "../domain/errors.js"
import type { ResolvedPath } from "../domain/WorkspacePath.js"

/** The code points HFS+ ignores in names (git's list in `utf8.c`). */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g

/** Whether one path component names a `.git` on some file system. */
export const isDotGit = (component: string): boolean =>
  component.replace(HFS_IGNORED, "").replace(/[. ]+$/, "").toLowerCase() === ".git"

/** The first `.git` component of `path` below `root` (both real paths), if any. */
export const protectedComponent = (root: string, path: string): Option.Option<string> =>
  Option.fromUndefinedOr(NodePath.relative(root, path).split(NodePath.sep).find(isDotGit))

/** Fails with `ProtectedPath` for the first of `paths` under a `.git` of `root`; otherwise gives `paths` back. */
export const refuseProtected = <P extends ResolvedPath | string>(
  tool: string,
  root: string,
  paths: ReadonlyArray<P>
): Effect.Effect<ReadonlyArray<P>, ProtectedPath> => {
  for (const path of paths) {
    const component = protectedComponent(root, path)
    if (Option.isSome(component)) {
      return Effect.fail(new ProtectedPath({ tool, path: NodePath.relative(root, path), component: component.value }))
    }
  }
  return Effect.succeed(paths)
}
