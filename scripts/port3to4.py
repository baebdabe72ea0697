"""Mechanical first pass of an Effect 3 file to Effect 4 (renames only); the rest by hand."""
import re, sys
RENAMES = [
  (r'\bEffect\.async\b', 'Effect.callback'),
  (r'\bEffect\.catchAll\b', 'Effect.catch'),
  (r'\bEffect\.catchAllCause\b', 'Effect.catchCause'),
  (r'\bEffect\.zipRight\(', 'Effect.andThen('),
  (r'\bEffect\.fork\(', 'Effect.forkChild('),
  (r'\bEffect\.either\(', 'Effect.result('),
  (r'\bEffect\.dieMessage\(([^)]*)\)', r'Effect.die(new Error(\1))'),
  (r'\bCause\.isDie\(', 'Cause.hasDies('),
  (r'\bCause\.isFailure\(', 'Cause.hasFails('),
  (r'\bCause\.isInterruptedOnly\(', 'Cause.hasInterruptsOnly('),
  (r'\bCause\.failureOption\(', 'Cause.findErrorOption('),
  (r'\bEither\.isLeft\(', 'Result.isFailure('),
  (r'\bEither\.isRight\(', 'Result.isSuccess('),
  (r'\bEither\b', 'Result'),
  (r'\.left\b', '.failure'),
  (r'\.right\b', '.success'),
  (r'from "@effect/platform/FileSystem"', 'from "effect/FileSystem"'),
  (r'from "@effect/platform/Path"', 'from "effect/Path"'),
  (r'Context\.Tag\("([^"]+)"\)<(\w+), (\w+)>\(\)', r'Context.Service<\2, \3>()("\1")'),
]
for path in sys.argv[1:]:
  s = open(path).read()
  for a, b in RENAMES:
    s = re.sub(a, b, s)
  open(path, 'w').write(s)
