/**
 * `directory_tree`: an indented tree of a workspace directory, `max_depth` levels deep, at most
 * `DIRECTORY_TREE_MAX_ENTRIES` entries. The tree is walked breadth first (`safeFsScan.ts`), so
 * when the cap is reached the upper levels are complete and the deeper ones are cut; it is then
 * drawn depth first:
 *
 * ```
 * src/
 *   lib/
 *     util.ts
 *   docs -> shared/docs/
 *     guide.md
 *   node_modules/ (not listed)
 *   deep/ …
 * 2 directories, 2 files
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { defaultPath, WorkspacePath } from "../../../domain/WorkspacePath.js"
import { Workspace } from "../../../services/Workspace.js"
import { make } from "../../defineBuiltin.js"
import { scan, type ScanEntry } from "../../shared/safeFsScan.js"
import { directoryFailure } from "../../shared/walkArguments.js"
import { plural, shownName, SKIP_NAMES, TAGS, walkNotes } from "./common.js"

/** Most entries one tree shows. */
export const DIRECTORY_TREE_MAX_ENTRIES = 1000
/** Largest `max_depth`. */
export const DIRECTORY_TREE_MAX_DEPTH = 20

const TOOL = "directory_tree"

/** The line of one entry (without indentation); `listed` when its contents follow it. */
const lineOf = (entry: ScanEntry, shownTarget: string | undefined, listed: boolean): string => {
  const arrow = shownTarget === undefined ? "" : ` -> ${shownName(shownTarget)}`
  const name = shownName(entry.name)
  switch (entry._tag) {
    case "File":
      return `${name}${arrow}`
    case "LinkOut":
      return `${name} -> (outside the workspace, or missing; not followed)`
    case "Other":
      return `${name} (not a regular file)`
    case "Directory":
      return entry.expanded === "skipped"
        ? `${name}/ (not listed)`
        : entry.expanded === "repeat"
        ? `${name}/${arrow}${arrow === "" ? "" : "/"} (not expanded: it is elsewhere in this tree)`
        : `${name}/${arrow}${arrow === "" ? "" : "/"}${listed ? "" : " …"}`
  }
}

export const directoryTree = make(TOOL, {
  description: "Show the files and directories under a workspace directory as an indented tree, max_depth levels " +
    `deep, at most ${DIRECTORY_TREE_MAX_ENTRIES} entries. Directories end with "/"; a "…" marks one whose contents ` +
    "are not shown. .git and node_modules are not listed.",
  parameters: Schema.Struct({
    directory: WorkspacePath.annotate({ description: "Directory to show, relative to the workspace root" }).pipe(
      Schema.withDecodingDefaultType(Effect.sync(defaultPath(".")))
    ),
    max_depth: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: DIRECTORY_TREE_MAX_DEPTH })).annotate({
      description: `Levels to show (1: only the directory's own entries; at most ${DIRECTORY_TREE_MAX_DEPTH})`
    }).pipe(Schema.withDecodingDefaultType(Effect.succeed(3)))
  }),
  readOnly: true,
  tags: TAGS,
  timeout: "30 seconds",
  handler: ({ directory, max_depth }) =>
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const shownDir = yield* workspace.display(directory)
      const children = new Map<string, ReadonlyArray<ScanEntry>>()
      let count = 0
      const walked = yield* scan(directory, {
        maxDepth: max_depth,
        skipNames: SKIP_NAMES,
        resolveLink: workspace.tryResolve,
        visit: (dir, entries) =>
          Effect.sync(() => {
            // a level that does not fit is cut at the cap, and the walk ends there
            const room = DIRECTORY_TREE_MAX_ENTRIES - count
            const kept = entries.length > room ? entries.slice(0, room) : entries
            children.set(dir.rel, kept)
            count += kept.length
            return count < DIRECTORY_TREE_MAX_ENTRIES
          })
      }).pipe(Effect.catch(directoryFailure(TOOL, directory)))

      const targets = new Map<string, string>()
      for (const entries of children.values()) {
        for (const entry of entries) {
          if (entry._tag !== "LinkOut" && entry._tag !== "Other" && entry.target !== undefined) {
            targets.set(entry.target, yield* workspace.display(entry.target))
          }
        }
      }
      const lines = [`${shownName(shownDir)}/`]
      let dirs = 0
      let files = 0
      const draw = (rel: string, indent: string) => {
        for (const entry of children.get(rel) ?? []) {
          const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`
          // a directory the walk listed (one queued but cut off by the cap was not); nothing else has children
          const listed = children.has(childRel)
          const target = entry._tag === "File" || entry._tag === "Directory" ? entry.target : undefined
          lines.push(`${indent}${lineOf(entry, target === undefined ? undefined : targets.get(target), listed)}`)
          if (entry._tag === "Directory") dirs++
          else if (entry._tag === "File") files++
          if (listed) draw(childRel, `${indent}  `)
        }
      }
      draw("", "  ")
      const notes = [
        `${plural(dirs, "directory", "directories")}, ${plural(files, "file", "files")}`,
        ...(walked.stopped
          ? [`(the tree stops at ${DIRECTORY_TREE_MAX_ENTRIES} entries; for what is cut or marked "…", run directory_tree on ` +
            "a subdirectory, or lower max_depth)"]
          : lines.some((line) => line.endsWith(" …"))
          ? [`("…": deeper than max_depth=${max_depth}; raise max_depth or run directory_tree on that directory)`]
          : []),
        ...walkNotes(walked)
      ]
      return [...lines, ...notes].join("\n")
    })
})
