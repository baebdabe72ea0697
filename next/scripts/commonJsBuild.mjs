/**
 * What turns an ES module of ours into a CommonJS bundle (esbuild options), shared by
 * `bundle.mjs` and the launcher's test: `import.meta.url` (which CommonJS lacks) becomes the
 * bundle file's own URL.
 */
export const commonJs = {
  format: "cjs",
  outExtension: { ".js": ".cjs" },
  define: { "import.meta.url": "__etsBundleUrl" },
  banner: { js: "var __etsBundleUrl=require(\"node:url\").pathToFileURL(__filename).href;" }
}
