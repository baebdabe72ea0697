// A server that exits before it answers anything.
process.stderr.write("fatal: missing configuration FOO_TOKEN\n")
process.exit(3)
