// A server that exits before it answers anything, after logging a lot to stderr: the reason
// it gives is at the end.
for (let i = 0; i < 200; i++) process.stderr.write(`debug: loading plugin ${i} of 200\n`)
process.stderr.write("fatal: missing configuration FOO_TOKEN\n")
// It exits once stderr has taken every line: process.exit() drops the writes still queued, and
// some are when the socket to the parent is full. Node 22's libuv (1.51) gives a child's stdio
// sockets 64 KiB buffers (128 KiB as the kernel counts them, where Linux's default is 208 KiB),
// and each small write takes about 770 bytes of it: a parent that does not read at once lost
// its last 30 or so lines in 2 to 21 runs in 100 (measured).
process.exitCode = 3
