/**
 * The text of a served call's reply, for the server's tests: its text blocks, one a line (any
 * other block as JSON). Typed by shape, so the replies of either SDK's client fit (SDK 1.32's
 * and `@modelcontextprotocol/client` 2.x), whatever the bridge's own result type is.
 */
export const replyText = (reply: object): string => {
  const content: unknown = "content" in reply ? reply.content : undefined
  return Array.isArray(content)
    ? content.map((block: unknown) =>
      typeof block === "object" && block !== null && "text" in block && typeof block.text === "string"
        ? block.text
        : JSON.stringify(block)
    ).join("\n")
    : ""
}
