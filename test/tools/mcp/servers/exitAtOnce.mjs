// A server that exits before it answers anything, after logging a lot to stderr: the reason
// it gives is at the end.
for (let i = 0; i < 200; i++) process.stderr.write(`debug: loading plugin ${i} of 200\n`)
process.stderr.write("fatal: missing configuration FOO_TOKEN\n")
process.exit(3)
