import { defineValue } from '@plan/json'
import { valueAt } from '@plan/shell/common'
import { checkUrl } from '../compile/check-url.js'
import type { ArgSpec } from '../schema/policy-schema.js'
import type { JsonObject, JsonValue } from '../types/json-value.js'

function normalize(spec: ArgSpec, holder: object, key: string | number, value: JsonValue): void {
  if (spec.type === 'string' && spec.format === 'url' && typeof value === 'string') {
    const checked = checkUrl(value, { schemes: spec.schemes ?? ['https'], hosts: spec.hosts })
    if (checked.ok && checked.url !== value) defineValue(holder, key, checked.url)
  } else if (spec.type === 'array' && Array.isArray(value)) {
    value.forEach((item, index) => {
      normalize(spec.items, value, index, item)
    })
  }
}

/** Sets each checked `format: "url"` value to its approved URL: the tool gets what was checked. */
export function normalizeUrlArguments(
  specs: Readonly<Record<string, ArgSpec>>,
  args: JsonObject,
): void {
  for (const name of Object.keys(specs))
    if (Object.hasOwn(args, name)) normalize(valueAt(specs, name), args, name, valueAt(args, name))
}
