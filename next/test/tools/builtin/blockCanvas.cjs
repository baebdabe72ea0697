// Preloaded (NODE_OPTIONS=--require) into a child process and, through NODE_OPTIONS, into its
// worker threads: `@napi-rs/canvas` (pdfjs-dist's optional dependency) cannot be resolved, as
// after `npm install --omit=optional`.
const Module = require("node:module")

const resolve = Module._resolveFilename
Module._resolveFilename = function(request, ...rest) {
  if (request === "@napi-rs/canvas" || request.startsWith("@napi-rs/canvas/")) {
    const error = new Error(`Cannot find module '${request}' (blocked by blockCanvas.cjs)`)
    error.code = "MODULE_NOT_FOUND"
    throw error
  }
  return resolve.call(this, request, ...rest)
}
