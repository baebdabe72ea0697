/**
 * Messages name workspace-relative paths: the workspace root's absolute path is taken out.
 *
 * @since 0.1.0
 */

/** `text` with the workspace root's absolute path taken out. */
export const relativeToRoot = (text: string, root: string): string =>
  root === "/" || !text.includes(root) ? text : text.replaceAll(`${root}/`, "").replaceAll(root, ".")
