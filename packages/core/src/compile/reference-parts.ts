import { isForbiddenKey } from '@plan/json'
import { stringAt } from '@plan/shell/common'

type Key = string | number

const MAX_REFERENCE_FIELDS = 32
const NO_FIELD: readonly string[] = Object.freeze([])
const OUTPUT = '.output'

/** The field path of `$ref` target `<step>[.output[.<field>…]]`, or undefined when malformed. */
export function referenceField(target: string, dot: number): readonly string[] | undefined {
  if (dot === -1) return NO_FIELD
  if (!target.startsWith(OUTPUT, dot)) return undefined
  const fieldsAt = dot + OUTPUT.length + 1
  // startsWith above leaves at least `<step>.output`: exactly that reads the whole output.
  if (target.length < fieldsAt) return NO_FIELD
  if (target.charCodeAt(fieldsAt - 1) !== 0x2e) return undefined
  return splitFields(target.slice(fieldsAt))
}

/** `a.b.c` as `["a", "b", "c"]`, or undefined for an empty, prototype or excess field. */
function splitFields(text: string): string[] | undefined {
  const parts = text.indexOf('.') === -1 ? [text] : text.split('.')
  if (parts.length > MAX_REFERENCE_FIELDS) return undefined
  for (let index = 0; index < parts.length; index += 1) {
    const part = stringAt(parts, index)
    if (part === '' || isForbiddenKey(part)) return undefined
  }
  return parts
}

/**
 * Frozen reference paths and fields shared (unobservably) by one plan's steps: a plan whose steps
 * read `content` from `.output.text` holds one `["content"]` and one `["text"]`, not one each.
 */
export class ReferenceParts {
  readonly #paths = new Map<Key, readonly Key[]>()
  readonly #fields = new Map<string, readonly string[] | null>()
  // The last suffix looked up and its field: references of a plan often read the same field.
  #lastSuffix = ''
  #lastField: readonly string[] | null = null

  /** The frozen path `[...parent, key]`; shared when `parent` is empty. */
  path(parent: readonly Key[], key: Key): readonly Key[] {
    if (parent.length > 0) return Object.freeze([...parent, key])
    let path = this.#paths.get(key)
    if (path === undefined) {
      path = Object.freeze([key])
      this.#paths.set(key, path)
    }
    return path
  }

  /** {@link referenceField}, frozen and shared between equal targets' fields. */
  field(target: string, dot: number): readonly string[] | undefined {
    if (dot === -1) return NO_FIELD
    const last = this.#lastSuffix
    if (last !== '' && target.length - dot === last.length && target.endsWith(last))
      return this.#lastField ?? undefined
    const suffix = target.slice(dot)
    let field = this.#fields.get(suffix)
    if (field === undefined) {
      field = freezeField(referenceField(suffix, 0)) ?? null
      this.#fields.set(suffix, field)
    }
    this.#lastSuffix = suffix
    this.#lastField = field
    return field ?? undefined
  }
}

/** A reference's field, frozen; the empty field is the one shared constant. */
function freezeField(field: readonly string[] | undefined): readonly string[] | undefined {
  return field === undefined || field === NO_FIELD ? field : Object.freeze(field)
}
