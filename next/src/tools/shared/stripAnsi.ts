/**
 * ANSI escape sequences removed from a text: `strip-ansi` 7.2.0 with its pattern from
 * `ansi-regex` 6.6.0, the versions the Effect 3 tree depends on, copied here because the
 * Effect 4 tree (`next/`) does not depend on them yet. The same pattern and the same fast path,
 * so `sanitize.ts` removes exactly what it removes in the Effect 3 tree. Once `strip-ansi` is a
 * dependency of this tree, `sanitize.ts` imports it again and this file goes.
 *
 * The pattern is from ansi-regex (https://github.com/chalk/ansi-regex), MIT License,
 * Copyright (c) Sindre Sorhus <sindresorhus@gmail.com> (https://sindresorhus.com):
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy of this software
 * and associated documentation files (the "Software"), to deal in the Software without
 * restriction, including without limitation the rights to use, copy, modify, merge, publish,
 * distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
 * Software is furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all copies or
 * substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
 * BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
 * NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
 * DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
 *
 * @since 0.1.0
 */

/** Valid string terminators: ESC \ and 0x9c (OSC also accepts BEL). */
const ST = String.raw`(?:\u001B\u005C|\u009C)`

/** What stops the payload of a control string: cancellations, ESC and the C1 controls. */
const stringControls = String.raw`\u0018\u001A\u001B\u0080-\u009F`

/** OSC: ESC ] (or 0x9d) ... BEL or ST. */
const osc = String.raw`(?:\u001B\]|\u009D)[^\u0007${stringControls}]*(?:\u0007|${ST})`

/** DCS, SOS, PM, APC and screen window titles: an opaque payload ended by ST. */
const controlString = String.raw`(?:\u001B[PX^_k]|[\u0090\u0098\u009E\u009F])[^${stringControls}]*${ST}`

/** Linux console palette controls: fixed lengths, an adjacent terminator taken along. */
const linuxPalette = String.raw`\u001B\](?:P[\dA-Fa-f]{7}|R)(?:\u0007|${ST})?`

/** CSI: ESC [ (or 0x9b), parameter bytes, intermediate bytes, a final byte. */
const csi = String.raw`(?:\u001B\[|\u009B)[\u0030-\u003F]*[\u0020-\u002F]*[\u0040-\u007E]`

/** Other escapes: ESC, intermediate bytes and a final byte, or a supported two-byte escape. */
const escape = String.raw`\u001B(?:[\u0020-\u002F]+[\u0030-\u007E]|[\dA-PR-TZcf-oq-uy=><~|}])`

const ANSI = new RegExp(`${linuxPalette}|${osc}|${controlString}|${csi}|${escape}`, "g")

/** `text` without ANSI escape sequences (`strip-ansi`'s default export). */
export const stripAnsi = (text: string): string =>
  // sequences need ESC (7-bit) or CSI (8-bit) to start
  !text.includes("\u001B") && !text.includes("\u009B") ? text : text.replace(ANSI, "")
