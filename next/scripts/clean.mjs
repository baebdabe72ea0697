/**
 * Removes `dist/` before a build, so no module of an earlier build (a renamed or deleted
 * source) is packed with this one.
 */
import { rmSync } from "node:fs"

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true })
