/**
 * The web tools: `fetch_url`, `http_request`, `download_file`, all through `UrlPolicy`.
 *
 * @since 0.1.0
 */
import { downloadFile } from "./downloadFile.js"
import { fetchUrl } from "./fetchUrl.js"
import { httpRequest } from "./httpRequest.js"

export { downloadFile, fetchUrl, httpRequest }

/** The web tools, in catalog order. */
export const webTools = [fetchUrl, httpRequest, downloadFile] as const
