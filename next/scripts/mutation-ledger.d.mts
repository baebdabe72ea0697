/** See `mutation-ledger.mjs`. */
export interface LedgerEntry {
  readonly file: string
  readonly mutators: ReadonlyArray<string>
  readonly code: string
  readonly previous?: string
  readonly reason: string
  readonly unmarked?: boolean
}

/** A mutant of Stryker's JSON report (1-based lines and columns). */
export interface ReportedMutant {
  readonly mutatorName: string
  readonly status: string
  readonly location: { readonly start: { readonly line: number; readonly column: number } }
}

export declare const root: string
export declare const ledgerPath: string
export declare const readLedger: (path?: string) => Array<LedgerEntry>
export declare const repoPath: (path: string) => string
export declare const previousCode: (lines: ReadonlyArray<string>, index: number, count?: number) => string
export declare const locate: (entry: Pick<LedgerEntry, "code" | "previous">, lines: ReadonlyArray<string>) => Array<number>
export declare const equivalents: (
  entries: ReadonlyArray<LedgerEntry>
) => (file: string, source: string) => (mutatorName: string, line: number) => LedgerEntry | undefined
export declare const countMutants: (
  file: string,
  source: string,
  mutants: ReadonlyArray<ReportedMutant>,
  entries: ReadonlyArray<LedgerEntry>
) => {
  counts: Record<string, number>
  contradicted: Array<{ mutant: ReportedMutant; entry: LedgerEntry }>
}
