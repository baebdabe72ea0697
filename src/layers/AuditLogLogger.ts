/**
 * The audit log on Effect's logger: one log line a call, in the calling fiber (so the
 * call's own annotations and spans are on it too). The message reads at a glance; the whole
 * record is the `audit` annotation, which a JSON or logfmt logger prints in full.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import type { AuditLogLoggerOptions, AuditLogService, AuditRecord } from "../services/AuditLog.js"

/** `tool call read_file@1.0.0 (mode default): ok in 3 ms`, or the error code instead of `ok`. */
export const auditMessage = (record: AuditRecord): string =>
  `tool call ${record.tool}${record.version === null ? "" : `@${record.version}`} (mode ${record.mode}): ${
    record.success ? "ok" : record.errorCode ?? "failed"
  } in ${Math.round(record.durationMs)} ms`

/** The `AuditLog` service of `AuditLog.layerLogger`. */
export const makeLogger = (options: AuditLogLoggerOptions): AuditLogService => {
  const includeArguments = options.includeArguments === true
  const log = Effect.logWithLevel(options.level ?? "Info")
  return {
    enabled: true,
    includeArguments,
    write: (record) => {
      const { arguments: args, ...rest } = record
      const shown = includeArguments && args !== undefined ? { ...rest, arguments: args } : rest
      return log(auditMessage(record)).pipe(Effect.annotateLogs("audit", shown))
    }
  }
}
