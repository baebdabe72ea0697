/**
 * The file managing tools, and `list_snapshots` (read-only, from the reading group) because it
 * shares the snapshot store's format with `snapshot_file` and `restore_snapshot`.
 *
 * @since 0.1.0
 */
import { createDirectory } from "./createDirectory.js"
import { deleteFile } from "./deleteFile.js"
import { listSnapshots } from "./listSnapshots.js"
import { restoreSnapshot } from "./restoreSnapshot.js"
import { snapshotFile } from "./snapshotFile.js"

export { createDirectory, deleteFile, listSnapshots, restoreSnapshot, snapshotFile }

/** The managing tools in catalog order, then `list_snapshots`. */
export const managingTools = [createDirectory, deleteFile, snapshotFile, restoreSnapshot, listSnapshots] as const
