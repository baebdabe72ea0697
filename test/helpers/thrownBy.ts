/** What `f` throws, or `undefined` when it returns: for checks of a throw's class and fields. */
export const thrownBy = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}
