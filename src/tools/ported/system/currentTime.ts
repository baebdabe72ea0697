/**
 * `get_current_time`: the current time (from Effect's `Clock`, so tests can set it) as an ISO
 * 8601 timestamp in a time zone: an IANA name through `Intl` (case-insensitive; an unknown one
 * is an error with suggestions), or a fixed offset like `+05:30` or `UTC-3`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { ToolError } from "../../../domain/errors.js"
import { make } from "../../defineBuiltin.js"

const TOOL = "get_current_time"

/** A fixed offset: `+05:30`, `-0800`, `UTC+2`, `GMT-3`. */
const OFFSET = /^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$/i

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const

/** The local time and offset of `now` in a zone. */
interface Local {
  readonly iso: string
  readonly zone: string
  readonly offset: string
  readonly weekday: string
}

/** `+hh:mm` of a signed number of minutes. */
const offsetText = (minutes: number) =>
  `${minutes < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`

/** Local time at a fixed offset (in minutes east of UTC). */
const atOffset = (now: number, minutes: number, zone: string): Local => {
  const shifted = new Date(now + minutes * 60_000)
  const iso = shifted.toISOString().slice(0, -1)
  const weekday = WEEKDAYS[shifted.getUTCDay()] ?? ""
  return { iso: `${iso}${offsetText(minutes)}`, zone, offset: offsetText(minutes), weekday }
}

/** Local time in an IANA zone, or `undefined` when `Intl` does not know it. */
const inZone = (now: number, zone: string): Local | undefined => {
  let format: Intl.DateTimeFormat
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      timeZoneName: "longOffset",
      weekday: "long",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      fractionalSecondDigits: 3,
      hourCycle: "h23"
    })
  } catch {
    return undefined
  }
  const parts = new Map(format.formatToParts(new Date(now)).map((p) => [p.type, p.value]))
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.get(type) ?? ""
  const name = get("timeZoneName").replace(/^GMT/, "")
  // an ICU may write a zero offset as plain "GMT" (CLDR's zero format); Node 20's writes "GMT+00:00",
  // so with it the fallback is not reached
  const offset = name || "+00:00"
  const resolved = format.resolvedOptions().timeZone
  return {
    iso: `${get("year")}-${get("month")}-${get("day")}T${get("hour")}:${get("minute")}:${get("second")}.${
      get("fractionalSecond")
    }${offset}`,
    zone: resolved.toLowerCase() === zone.toLowerCase() ? resolved : `${zone} (${resolved})`,
    offset,
    weekday: get("weekday")
  }
}

/** Known zones that look like `zone`, for the error. */
const suggestions = (zone: string): ReadonlyArray<string> => {
  const key = (zone.split("/").pop() ?? zone).toLowerCase().replace(/[\s-]+/g, "_")
  if (key.length < 3) return []
  return Intl.supportedValuesOf("timeZone").filter((z) => z.toLowerCase().includes(key)).slice(0, 5)
}

const localTime = (now: number, zone: string): Result.Result<Local, string> => {
  const offset = OFFSET.exec(zone.trim())
  if (offset !== null) {
    const hours = Number(offset[2])
    const minutes = Number(offset[3] ?? 0)
    if (hours > 14 || minutes > 59) return Result.fail(`the offset ${JSON.stringify(zone)} is out of range (-14:00 to +14:00)`)
    const total = (offset[1] === "-" ? -1 : 1) * (hours * 60 + minutes)
    return Result.succeed(atOffset(now, total, `UTC${offsetText(total)}`))
  }
  const local = inZone(now, zone)
  if (local !== undefined) return Result.succeed(local)
  const near = suggestions(zone)
  return Result.fail(
    `unknown time zone ${JSON.stringify(zone)}: use an IANA name such as "Europe/Paris", "America/New_York" or "UTC", ` +
      `or an offset such as "+05:30"${near.length > 0 ? `; did you mean ${near.map((z) => `"${z}"`).join(", ")}?` : ""}`
  )
}

export const getCurrentTime = make(TOOL, {
  description: "Get the current date and time as an ISO 8601 timestamp with its UTC offset and weekday, in a time zone " +
    "(an IANA name like \"Europe/Paris\" or \"America/New_York\", \"UTC\", or an offset like \"+05:30\"); " +
    "the system's zone when omitted. Also gives the time in UTC.",
  parameters: Schema.Struct({
    timezone: Schema.optional(
      Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64)).annotate({
        description: "IANA time zone name or UTC offset; the system's zone when omitted"
      })
    )
  }),
  readOnly: true,
  tags: ["system", "ported"],
  timeout: "5 seconds",
  handler: ({ timezone }) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const zone = timezone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC")
      const local = localTime(now, zone)
      if (Result.isFailure(local)) return yield* new ToolError({ tool: TOOL, message: local.failure })
      const { iso, offset, weekday } = local.success
      return `${iso} (${weekday}, ${local.success.zone}, UTC${offset})\nUTC: ${new Date(now).toISOString()}`
    })
})
