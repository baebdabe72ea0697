/**
 * Messages name workspace-relative paths: the workspace root's absolute path is taken out.
 *
 * @since 0.1.0
 */

/** Characters that continue a path name: a root followed by one of them names another path. */
const NAME_CHAR = String.raw`[\w.~@+%-]`

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")

/** What may follow the root where it ends: not a name character (a "." ending a sentence may). */
const ENDS = String.raw`(?![\w~@+%-]|\.${NAME_CHAR})`

/** The root where it stands as a whole path (not inside `/x/srv/ws` or `/srv/ws2`), with its "/". */
const rootPattern = (root: string) => new RegExp(`(?<!${NAME_CHAR}|/)${escapeRegExp(root)}(?:/|${ENDS})`, "g")

/** `text` with the workspace root's absolute path taken out (a root of `/` leaves it as it is). */
export const relativeToRoot = (text: string, root: string): string =>
  root === "/" ? text : text.replace(rootPattern(root), (found) => (found.endsWith("/") ? "" : "."))
