/**
 * The bounded fetch behind the MCP HTTP server's OAuth checks: the authorization server's key
 * set (JWKS) and, when no JWKS URL is configured, its metadata document. Only the URLs it is
 * made for are fetched (no redirect followed), within a deadline (the caller's signal) and up
 * to a size cap: a key server that hangs, floods or redirects is an error the caller reports
 * (503), never a request that waits forever or a heap that fills.
 *
 * @since 1.0.0
 */

/**
 * A key server's answer could not be taken: the caller answers 503, the token is not at fault.
 *
 * @internal
 */
export class KeySourceError extends Error {
  override readonly name = "KeySourceError"
}

/**
 * The body of `response`, read up to `maxBytes` (the read is cancelled past it).
 *
 * @internal
 */
export const readCapped = async (response: Response, maxBytes: number, what: string): Promise<Uint8Array> => {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN)
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw new KeySourceError(`${what} is over ${maxBytes} bytes (${declared} declared)`)
  }
  if (response.body === null) return new Uint8Array(0)
  const reader = response.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw new KeySourceError(`${what} is over ${maxBytes} bytes`)
    }
    chunks.push(value)
  }
  const body = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    body.set(chunk, at)
    at += chunk.byteLength
  }
  return body
}

/**
 * A fetch of exactly `allowed` (any other URL is refused before a connection is made), no
 * redirect followed, whose answer is cut at `maxBytes`; `signal` is its deadline.
 *
 * @internal
 */
export const boundedFetch = (allowed: ReadonlySet<string>, maxBytes: number) =>
async (
  url: string,
  init: { readonly headers?: Headers | undefined; readonly signal?: AbortSignal | undefined }
): Promise<Response> => {
  if (!allowed.has(url)) throw new KeySourceError(`refused to fetch ${url}: not a configured URL`)
  const response = await fetch(url, {
    method: "GET",
    redirect: "manual",
    ...(init.headers === undefined ? {} : { headers: init.headers }),
    ...(init.signal === undefined ? {} : { signal: init.signal })
  }).catch((error: unknown) => {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) throw error
    throw new KeySourceError(`cannot fetch ${url}: ${error instanceof Error ? error.message : String(error)}`)
  })
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined)
    throw new KeySourceError(`${url} answered ${response.status}, not 200`)
  }
  const body = await readCapped(response, maxBytes, url)
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } })
}
