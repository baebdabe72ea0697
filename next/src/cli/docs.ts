/**
 * The generated tool table of `docs/tools.md`, between `<!-- AUTO:tools -->` markers.
 *
 * @since 0.1.0
 */
import type { ToolInfo } from "../domain/Tool.js"

export const START_MARKER = "<!-- AUTO:tools -->"
export const END_MARKER = "<!-- /AUTO:tools -->"

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ")

const parameterList = (tool: ToolInfo): string => {
  const properties = tool.spec.parameters.properties
  if (typeof properties !== "object" || properties === null) return "—"
  const names = Object.entries(properties).map(([name, schema]) => {
    const optional = !tool.spec.required.includes(name)
    const fallback = typeof schema === "object" && schema !== null && "default" in schema
      ? `=${JSON.stringify(schema.default)}`
      : ""
    return `\`${name}${optional && fallback === "" ? "?" : ""}${fallback}\``
  })
  return names.length === 0 ? "—" : names.join(", ")
}

/** The markdown table of the given tools (sorted by name). */
export const renderToolTable = (tools: ReadonlyArray<ToolInfo>): string => {
  const rows = [...tools]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((t) =>
      `| \`${t.name}\` | ${t.version} | ${t.spec.readOnly ? "yes" : "no"} | ${t.requiresConfirmation ? "yes" : "no"} | ${
        cell(t.tags.join(", "))
      } | ${cell(t.spec.description)} | ${cell(parameterList(t))} |`
    )
  return [
    "| tool | version | read-only | confirmation | tags | description | parameters |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows
  ].join("\n")
}

/** Replaces what stands between the markers; `undefined` when the markers are missing. */
export const replaceBetweenMarkers = (content: string, table: string): string | undefined => {
  const start = content.indexOf(START_MARKER)
  const end = content.indexOf(END_MARKER)
  if (start < 0 || end < start) return undefined
  return `${content.slice(0, start + START_MARKER.length)}\n${table}\n${content.slice(end)}`
}
