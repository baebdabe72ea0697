/**
 * A failure's message and `details` as a model sees them: no absolute host path. A path inside
 * the workspace becomes workspace-relative (`relativeToRoot`); any other absolute path of two
 * or more segments under a directory that shows the host's user names and layout (`/home`,
 * `/tmp`, `/var`, the workspace's own top directory, ...) is cut to `…/<last segment>`.
 * Only those roots: a JSON pointer (`/items/5`), a URL's path or `/usr/bin/git` says nothing
 * about the host and is part of what the message means.
 *
 * @since 0.3.0
 */
import * as Os from "node:os"
import { ToolError } from "../domain/errors.js"
import { relativeToRoot } from "./relativeToRoot.js"

/** Top directories whose paths show a host's users, projects or layout. */
const HOST_DIRS: ReadonlyArray<string> = [
  "home", "Users", "root", "tmp", "var", "private", "opt", "srv", "mnt", "media", "run", "work", "workspace", "data"
]

/** An absolute path of at least two segments, standing alone (not inside a URL, an IPv6 host or a relative path). */
const ABSOLUTE = /(?<![\w.~@+%:/\]-])\/((?:[\w.~@+%-]+\/)+)([\w.~@+%-]+)/g

/**
 * The first segment of an absolute path (`/home/me` → `home`). (A path matched by `ABSOLUTE`
 * has a first segment of one character or more, so an empty one here never matches anything.)
 */
const topOf = (path: string): string => path.split("/")[1] ?? ""

/** The top directories cut for this workspace: `HOST_DIRS`, and those of the root, home and temp directories. */
const hostDirs = (root: string): ReadonlySet<string> => new Set([...HOST_DIRS, topOf(root), topOf(Os.homedir()), topOf(Os.tmpdir())])

/** `text` without absolute host paths (see the module doc); a root of `/` leaves every path. */
export const withoutHostPaths = (text: string, root: string): string => {
  if (root === "/") return text
  const relative = relativeToRoot(text, root)
  const dirs = hostDirs(root)
  return relative.replace(ABSOLUTE, (found, parents: string, last: string) =>
    dirs.has(parents.slice(0, parents.indexOf("/"))) ? `…/${last}` : found)
}

/** `value` (JSON data) with `withoutHostPaths` applied to every string in it, keys too. */
export const detailsWithoutHostPaths = (value: unknown, root: string): unknown => {
  if (typeof value === "string") return withoutHostPaths(value, root)
  if (Array.isArray(value)) return value.map((item) => detailsWithoutHostPaths(item, root))
  if (typeof value === "object" && value !== null) return objectWithoutHostPaths(value, root)
  return value
}

const objectWithoutHostPaths = (value: object, root: string): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).map(([key, item]) => [withoutHostPaths(key, root), detailsWithoutHostPaths(item, root)]))

/** `error` with `detailsWithoutHostPaths` applied to its `details` (its message is shown through `withoutHostPaths`). */
export const withoutHostPathDetails = (error: ToolError, root: string): ToolError =>
  error.details === undefined ? error : new ToolError({
    tool: error.tool,
    message: error.message,
    cause: error.cause,
    details: objectWithoutHostPaths(error.details, root)
  })
