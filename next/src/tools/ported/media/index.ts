/**
 * The media tools: `generate_image`.
 *
 * @since 0.1.0
 */
import { generateImage } from "./generateImage.js"

export { generateImage }

/** The media tools, in catalog order. */
export const mediaTools = [generateImage] as const
