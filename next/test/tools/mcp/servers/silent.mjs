// A server that reads its stdin and never answers. --ignore-sigterm: it also ignores SIGTERM
// and the end of its stdin, so only SIGKILL ends it.
const stubborn = process.argv.includes("--ignore-sigterm")
if (stubborn) process.on("SIGTERM", () => {})
process.stdin.on("data", () => {})
process.stdin.on("end", () => {
  if (!stubborn) process.exit(0)
})
setInterval(() => {}, 1000)
