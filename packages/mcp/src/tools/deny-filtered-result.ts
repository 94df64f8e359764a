import { join, resolve } from 'node:path'
import type { PlanCompiler } from '@plan/core'
import { asRecord } from '../guard/message-fields.js'

/** Reads one listing's text and writes it back without the entries `keep` refuses. */
type TextFilter = (text: string, directory: string, keep: (path: string) => boolean) => string

const ENTRY_LINE = /^\[(FILE|DIR)\] (.*)$/
// `list_directory_with_sizes` pads the name to 30 characters and ends a file's line with its size
const SIZE_SUFFIX = /\s+\d+(?:\.\d+)? (?:B|KB|MB|GB|TB)$/

/** `[FILE] name` / `[DIR] name` lines, one per entry of `directory`; other lines kept. */
const entryLines: TextFilter = (text, directory, keep) =>
  text
    .split('\n')
    .filter((line) => {
      const match = ENTRY_LINE.exec(line)
      if (match === null) return true
      const name = (match[2] as string).replace(SIZE_SUFFIX, '').trimEnd()
      // both spellings: a name that ends in blanks is padded and trimmed alike
      return keep(join(directory, name)) && keep(join(directory, match[2] as string))
    })
    .join('\n')

/** One absolute path per line (`search_files`); a line that names a refused path is dropped. */
const pathLines: TextFilter = (text, directory, keep) =>
  text
    .split('\n')
    .filter((line) => line === 'No matches found' || keep(resolve(directory, line)))
    .join('\n')

interface TreeEntry {
  readonly name?: unknown
  readonly children?: unknown
}

function prunedTree(entries: unknown, directory: string, keep: (path: string) => boolean): unknown {
  if (!Array.isArray(entries)) throw new Error('not a tree')
  return entries
    .filter((entry: TreeEntry) => typeof entry?.name === 'string')
    .filter((entry: TreeEntry) => keep(join(directory, entry.name as string)))
    .map((entry: TreeEntry) =>
      entry.children === undefined
        ? entry
        : {
            ...entry,
            children: prunedTree(entry.children, join(directory, entry.name as string), keep),
          },
    )
}

/** `directory_tree`'s JSON: an entry (and all below it) that names a refused path is removed. */
const jsonTree: TextFilter = (text, directory, keep) =>
  JSON.stringify(prunedTree(JSON.parse(text), directory, keep), null, 2)

/** The listing tools of the MCP filesystem server, by the server's name of them. */
const LISTING_TOOLS: Readonly<Record<string, TextFilter>> = {
  list_directory: entryLines,
  list_directory_with_sizes: entryLines,
  directory_tree: jsonTree,
  search_files: pathLines,
}

/** True when `tool` (the server's name) is one whose results are filtered of `deny` names. */
export function isListingTool(tool: string): boolean {
  return Object.hasOwn(LISTING_TOOLS, tool)
}

function filteredText(
  filter: TextFilter,
  text: unknown,
  directory: string,
  keep: (path: string) => boolean,
): unknown {
  return typeof text === 'string' ? filter(text, directory, keep) : text
}

/**
 * A listing tool's result without the names the policy denies: `list_directory`,
 * `list_directory_with_sizes`, `directory_tree` and `search_files` of the MCP filesystem
 * server name files below the folder they are given, and an entry whose path tools may not
 * read (under `deny`) is removed from its text content and its `structuredContent.content`
 * alike. A result that cannot be read as its tool's format is replaced by an error result:
 * what cannot be filtered is not passed on.
 */
export function denyFilteredResult(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  result: unknown,
  compiler: PlanCompiler,
): unknown {
  // own entries only: `toString` or `constructor` is a tool name, not a filter
  const filter = isListingTool(tool) ? LISTING_TOOLS[tool] : undefined
  const listed = asRecord(result)
  if (filter === undefined || listed.isError === true || typeof args.path !== 'string')
    return result
  const directory = args.path
  const keep = (path: string) => compiler.checkPath(path, 'read').allowed
  try {
    const content = Array.isArray(listed.content)
      ? listed.content.map((item: unknown) => {
          const block = asRecord(item)
          return block.type === 'text'
            ? { ...block, text: filteredText(filter, block.text, directory, keep) }
            : item
        })
      : listed.content
    const structured = asRecord(listed.structuredContent)
    return {
      ...listed,
      ...(content === undefined ? {} : { content }),
      ...(listed.structuredContent === undefined
        ? {}
        : {
            structuredContent: {
              ...structured,
              content: filteredText(filter, structured.content, directory, keep),
            },
          }),
    }
  } catch {
    return {
      content: [
        {
          type: 'text',
          text: `@plan withheld the result of ${tool}: it could not be read to remove the names the policy denies.`,
        },
      ],
      isError: true,
    }
  }
}
