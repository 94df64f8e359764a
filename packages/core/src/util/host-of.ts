/** The lower-case host name of a URL, or `?` when the text is not a URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase()
  } catch {
    return '?'
  }
}
