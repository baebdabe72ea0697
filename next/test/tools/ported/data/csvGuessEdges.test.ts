import { describe, expect, it } from "@effect/vitest"
import { guessDelimiter } from "../../../../src/tools/ported/data/csv.js"
import { yamlNestingProblem } from "../../../../src/tools/ported/data/formats.js"

/** The sample the guess looks at: 64 KiB, 10 lines. */
const SAMPLE = 64 * 1024

describe("guessDelimiter: lines, the sample's end, consistency", () => {
  it("each line is counted on its own: a delimiter in every line beats a larger one in the first line only", () => {
    // ";" once on each of 3 lines; "," five times, all on the first line
    expect(guessDelimiter("a,b,c,d,e,f;g\n1;2\n3;4\n")).toBe(";")
    // the same, "," ten times: still the consistent one
    expect(guessDelimiter(`${"x,".repeat(10)}a;b\n1;2\n`)).toBe(";")
  })

  it("a final newline does not start an empty line that would make every delimiter uneven", () => {
    // ";" 1 and 1, "," 3 and 0: ";" is the consistent one
    expect(guessDelimiter("a;b,c,d,e\n1;2\n")).toBe(";")
    // without the final newline the last line is counted as it is
    expect(guessDelimiter("a;b,c\n1;2,c\n3;4")).toBe(";")
  })

  it("the 10th newline ends the sample: no empty 11th line, and the 11th line is not counted", () => {
    // 12 lines with ";" once each; "," 15 times on the first line only
    expect(guessDelimiter(`a;b${",".repeat(15)}\n${"1;2\n".repeat(11)}`)).toBe(";")
    // the 11th line (one "|" and 20 ";") is past the sample: "|" stays consistent
    expect(guessDelimiter(`${"a|b\n".repeat(10)}|${";".repeat(20)}\n`)).toBe("|")
  })

  it("a line cut by the 64 KiB end is left out; a 10th line that ends inside the sample is kept", () => {
    // 9 lines with ";" once; the 10th line has 20 "," and ends exactly at the sample's end, text follows
    const tenthCut = `${"a;b\n".repeat(9)}${",".repeat(20)}`
    const cut = `${tenthCut}${"x".repeat(SAMPLE - tenthCut.length)}\nmore`
    expect(cut.charAt(SAMPLE)).toBe("\n")
    expect(guessDelimiter(cut)).toBe(";")
    // 9 lines with ";" twice and "|" once; a 10th line with only "|" that ends inside the sample;
    // the sample reaches 10 lines, so nothing is cut: ";" is uneven, "|" consistent
    const full = `${"a;b;c|d\n".repeat(9)}x|y\n${"z".repeat(70_000)}\n`
    expect(guessDelimiter(full)).toBe("|")
  })

  it("one line longer than the sample is still counted; of several, only the cut last one is left out", () => {
    expect(guessDelimiter(`a;b${"x".repeat(70_000)}`)).toBe(";")
    // line 1: ";" and "|", line 2: "|" only, line 3 cut: "|" consistent over the two whole lines
    expect(guessDelimiter(`a;b|c\n1|2\n${"x".repeat(70_000)}`)).toBe("|")
  })

  it("a short text with no line break: its one line counts", () => {
    expect(guessDelimiter("a;b")).toBe(";")
    expect(guessDelimiter("a|b", "\t")).toBe("|")
  })

  it("the earlier of two equally good delimiters wins, and a later one does not replace a better one", () => {
    expect(guessDelimiter("a,b|c,d\n1,2|3,4\n")).toBe(",")
    expect(guessDelimiter("a,b,c|d\n")).toBe(",")
    expect(guessDelimiter("a\tb\tc;d\n1\t2\t3;4\n")).toBe("\t")
    // both uneven: the larger total, "," (4) over "|" (3)
    expect(guessDelimiter("a,b,c,d,e|f|g|h\n1\n")).toBe(",")
  })
})

describe("yamlNestingProblem: line starts and brackets", () => {
  it("a new line starts the indentation count again, after text too", () => {
    expect(yamlNestingProblem(`x\n${" ".repeat(513)}y`)).toBe("a line is indented or nested more than 512 columns deep")
    expect(yamlNestingProblem(`x: 1\n${" ".repeat(512)}y`)).toBeUndefined()
  })

  it("each of space, tab, \"-\", \"?\" and \":\" counts as indentation", () => {
    for (const c of [" ", "\t", "-", "?", ":"]) {
      expect(yamlNestingProblem(`${c.repeat(513)}x`)).toBe("a line is indented or nested more than 512 columns deep")
      expect(yamlNestingProblem(`${c.repeat(512)}x`)).toBeUndefined()
    }
  })

  it("only \"]\" and \"}\" close a bracket: other characters between openings do not", () => {
    expect(yamlNestingProblem("[a".repeat(257))).toBe("brackets are nested more than 256 deep")
    expect(yamlNestingProblem("{a, ".repeat(257))).toBe("brackets are nested more than 256 deep")
    expect(yamlNestingProblem("{}".repeat(300))).toBeUndefined()
    expect(yamlNestingProblem("[]".repeat(300))).toBeUndefined()
    expect(yamlNestingProblem(`${"[".repeat(256)}}[`)).toBeUndefined()
  })
})
