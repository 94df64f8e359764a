// Splits a WebAssembly module's largest functions into many small ones without changing what
// they compute. V8 compiles a hot function again with its optimising compiler in one job whose
// memory grows with the function's size times its branches: tree-sitter's generated lexer
// (`ts_lex`, one 160 KB function with a 950-way switch) makes that job take half a GiB.
//
// The rewrite moves the code of each case (the code after the end of a block that opens its
// enclosing block) into a function that takes every local as a parameter and returns which
// enclosing label it left by, with the locals it wrote; the call site branches there.

const BLOCK = 0x02
const LOOP = 0x03
const IF = 0x04
const ELSE = 0x05
const END = 0x0b
const BR = 0x0c
const BR_IF = 0x0d
const BR_TABLE = 0x0e
const RETURN = 0x0f
const CALL = 0x10
const LOCAL_GET = 0x20
const LOCAL_SET = 0x21
const LOCAL_TEE = 0x22
const I32_CONST = 0x41
const I32_EQZ = 0x45
const I32_EQ = 0x46
const DROP = 0x1a
const VOID = 0x40
const I32 = 0x7f

/** Encodes an unsigned LEB128 number. */
function leb(value) {
  const out = []
  let rest = value
  do {
    let byte = rest & 0x7f
    rest = Math.floor(rest / 128)
    if (rest !== 0) byte |= 0x80
    out.push(byte)
  } while (rest !== 0)
  return out
}

/** Encodes a non-negative signed LEB128 number. */
function signedLeb(value) {
  const out = []
  let rest = value
  for (;;) {
    const byte = rest & 0x7f
    rest = Math.floor(rest / 128)
    if (rest === 0 && (byte & 0x40) === 0) return [...out, byte]
    out.push(byte | 0x80)
  }
}

function createReader(bytes, position) {
  const reader = {
    position,
    byte: () => bytes[reader.position++],
    u32() {
      let result = 0
      let shift = 0
      for (;;) {
        const byte = bytes[reader.position++]
        result += (byte & 0x7f) * 2 ** shift
        shift += 7
        if ((byte & 0x80) === 0) return result
      }
    },
    skipLeb() {
      while ((bytes[reader.position] & 0x80) !== 0) reader.position++
      reader.position++
    },
    skipName() {
      const length = reader.u32()
      reader.position += length
    },
  }
  return reader
}

function readSections(bytes) {
  const reader = createReader(bytes, 8)
  const sections = []
  while (reader.position < bytes.length) {
    const head = reader.position
    const id = reader.byte()
    const size = reader.u32()
    sections.push({ id, head, start: reader.position, end: reader.position + size })
    reader.position += size
  }
  return sections
}

function skipLimits(reader) {
  const flags = reader.byte()
  reader.u32()
  if (flags & 1) reader.u32()
}

function countImportedFunctions(bytes, section) {
  if (section === undefined) return 0
  const reader = createReader(bytes, section.start)
  let functions = 0
  const count = reader.u32()
  for (let index = 0; index < count; index++) {
    reader.skipName()
    reader.skipName()
    const kind = reader.byte()
    if (kind === 0) {
      reader.u32()
      functions++
    } else if (kind === 1) {
      reader.byte()
      skipLimits(reader)
    } else if (kind === 2) skipLimits(reader)
    else if (kind === 3) reader.position += 2
    else throw new Error(`Unsupported import kind ${kind}.`)
  }
  return functions
}

function readTypes(bytes, section) {
  const reader = createReader(bytes, section.start)
  const count = reader.u32()
  const types = []
  for (let index = 0; index < count; index++) {
    if (reader.byte() !== 0x60) throw new Error('Only function types are supported.')
    const params = Array.from({ length: reader.u32() }, () => reader.byte())
    const results = Array.from({ length: reader.u32() }, () => reader.byte())
    types.push({ params, results })
  }
  return types
}

function readVector(bytes, section, readItem) {
  const reader = createReader(bytes, section.start)
  const count = reader.u32()
  return Array.from({ length: count }, () => readItem(reader))
}

function readModule(bytes) {
  const sections = readSections(bytes)
  const find = (id) => sections.find((section) => section.id === id)
  return {
    sections,
    importedFunctions: countImportedFunctions(bytes, find(2)),
    types: readTypes(bytes, find(1)),
    functionTypes: readVector(bytes, find(3), (reader) => reader.u32()),
    bodies: readVector(bytes, find(10), (reader) => {
      const size = reader.u32()
      const body = { start: reader.position, end: reader.position + size }
      reader.position += size
      return body
    }),
  }
}

/** Reads one instruction's immediates; returns the branch depths, block type or index it has. */
function readImmediates(reader, op) {
  if (op === BLOCK || op === LOOP || op === IF) {
    const type = reader.byte()
    if (type !== VOID && !(type >= 0x6f && type <= 0x7f)) throw new Error('Unsupported block type.')
    return { type }
  }
  if (op === BR || op === BR_IF) return { depths: [reader.u32()] }
  if (op === BR_TABLE) {
    const count = reader.u32()
    return { depths: Array.from({ length: count + 1 }, () => reader.u32()) }
  }
  if (op === CALL || (op >= LOCAL_GET && op <= 0x24)) return { index: reader.u32() }
  if (op === 0x11) {
    reader.u32()
    reader.u32()
  } else if (op >= 0x28 && op <= 0x3e) {
    if (reader.u32() & 0x40) reader.u32()
    reader.u32()
  } else if (op === 0x3f || op === 0x40) reader.u32()
  else if (op === I32_CONST || op === 0x42) reader.skipLeb()
  else if (op === 0x43) reader.position += 4
  else if (op === 0x44) reader.position += 8
  else if (
    !(op <= 0x01 || op === ELSE || op === END || op === RETURN || op === 0x1a || op === 0x1b)
  )
    if (!(op >= 0x45 && op <= 0xc4)) throw new Error(`Unsupported opcode 0x${op.toString(16)}.`)
  return {}
}

/** Decodes a function body into instructions, each with the number of frames open before it. */
function decodeBody(bytes, body, paramTypes) {
  const reader = createReader(bytes, body.start)
  const localTypes = [...paramTypes]
  const groups = reader.u32()
  const groupsStart = reader.position
  for (let group = 0; group < groups; group++) {
    const count = reader.u32()
    const type = reader.byte()
    for (let index = 0; index < count; index++) localTypes.push(type)
  }
  const codeStart = reader.position
  const instructions = []
  let open = 0
  while (reader.position < body.end) {
    const start = reader.position
    const op = reader.byte()
    const immediates = readImmediates(reader, op)
    instructions.push({ op, start, end: reader.position, level: open, ...immediates })
    if (op === BLOCK || op === LOOP || op === IF) open++
    else if (op === END) open--
  }
  return { localTypes, groups, groupsStart, codeStart, instructions }
}

/**
 * Finds the regions to outline: in a block without results whose first instruction is a block
 * without results, the code after that inner block. Regions that return, or branch to a label
 * with values or to the function itself, are left in place; nested regions go with their parent.
 */
function findRegions(instructions, minimumBytes) {
  const frames = []
  const regions = []
  for (let index = 0; index < instructions.length; index++) {
    const instruction = instructions[index]
    const { op } = instruction
    if (op === BLOCK || op === LOOP || op === IF) {
      const parent = frames[frames.length - 1]
      const opensParent = parent !== undefined && parent.start === index - 1
      frames.push({ op, start: index, type: instruction.type, opensParent, regionStart: -1 })
    } else if (op === END && frames.length > 0) {
      const frame = frames.pop()
      const parent = frames[frames.length - 1]
      if (frame.opensParent && frame.op === BLOCK && frame.type === VOID && parent.op === BLOCK) {
        if (parent.type === VOID) parent.regionStart = index + 1
      }
      if (frame.regionStart >= 0 && frame.regionStart < index) {
        const labelTypes = [...frames.map((open) => open.type), VOID]
        const region = { start: frame.regionStart, end: index, level: frames.length + 1 }
        const bytes = instructions[index].start - instructions[region.start].start
        const usage = bytes >= minimumBytes && analyzeRegion(instructions, region, labelTypes)
        if (usage) regions.push({ ...region, ...usage })
      }
    }
  }
  regions.sort((a, b) => a.start - b.start || b.end - a.end)
  const chosen = []
  for (const region of regions) {
    const last = chosen[chosen.length - 1]
    if (last === undefined || region.start >= last.end) chosen.push(region)
  }
  return chosen
}

/** What a region needs: the labels it leaves by (0 = its own block), the locals it writes. */
function analyzeRegion(instructions, region, labelTypes) {
  const exits = new Set()
  const writes = new Set()
  for (let index = region.start; index < region.end; index++) {
    const instruction = instructions[index]
    if (instruction.op === RETURN) return undefined
    if (instruction.op === LOCAL_SET || instruction.op === LOCAL_TEE) writes.add(instruction.index)
    for (const depth of instruction.depths ?? []) {
      const inner = instruction.level - region.level
      if (depth < inner) continue
      const exit = depth - inner
      if (exit >= region.level || labelTypes[labelTypes.length - 1 - exit] !== VOID)
        return undefined
      exits.add(exit)
    }
  }
  return { exits: [...exits].sort((a, b) => a - b), writes: [...writes].sort((a, b) => a - b) }
}

/** Copies a region's instructions, sending each exit to its wrapper block around the copy. */
function encodeRegionCode(bytes, instructions, region) {
  const out = []
  for (let index = region.start; index < region.end; index++) {
    const instruction = instructions[index]
    if (instruction.depths === undefined) {
      for (let at = instruction.start; at < instruction.end; at++) out.push(bytes[at])
      continue
    }
    const inner = instruction.level - region.level
    const depths = instruction.depths.map((depth) =>
      depth < inner ? depth : inner + region.exits.indexOf(depth - inner),
    )
    out.push(instruction.op)
    if (instruction.op === BR_TABLE) out.push(...leb(depths.length - 1))
    for (const depth of depths) out.push(...leb(depth))
  }
  return out
}

/** The outlined function's body: wrapper blocks whose ends return the exit's number. */
function encodeOutlinedBody(bytes, instructions, region) {
  const { exits, writes } = region
  const returnCode = (code) => [
    I32_CONST,
    ...signedLeb(code),
    ...writes.flatMap((local) => [LOCAL_GET, ...leb(local)]),
  ]
  const out = [0]
  for (let index = 0; index < exits.length; index++) out.push(BLOCK, VOID)
  append(out, encodeRegionCode(bytes, instructions, region))
  out.push(...returnCode(exits.length), RETURN)
  for (let position = 0; position < exits.length; position++) {
    out.push(END, ...returnCode(position))
    if (position < exits.length - 1) out.push(RETURN)
  }
  out.push(END)
  return out
}

/**
 * The call that replaces a region: it passes every local and branches to the exit returned,
 * with one `br_if` per exit. (A `br_table` this deep in the switch's blocks would cost V8 work
 * in proportion to the depth, once to validate it and again to compile it, at every call site.)
 * `code` is a spare local that holds the exit's number while it is compared.
 */
function encodeCallSite(region, localCount, functionIndex, code) {
  const out = [BLOCK, VOID]
  for (let local = 0; local < localCount; local++) out.push(LOCAL_GET, ...leb(local))
  out.push(CALL, ...leb(functionIndex))
  for (const local of [...region.writes].reverse()) out.push(LOCAL_SET, ...leb(local))
  const { exits } = region
  if (exits.length === 0) out.push(DROP)
  else if (exits.length === 1) out.push(I32_EQZ, BR_IF, ...leb(exits[0] + 1))
  else {
    out.push(LOCAL_SET, ...leb(code))
    exits.forEach((exit, position) => {
      out.push(LOCAL_GET, ...leb(code), I32_CONST, ...signedLeb(position), I32_EQ)
      out.push(BR_IF, ...leb(exit + 1))
    })
  }
  out.push(END)
  return out
}

/** Appends bytes one by one: spreading a large array into push() overflows the stack. */
function append(target, source) {
  for (const byte of source) target.push(byte)
  return target
}

function encodeSection(id, payload) {
  return append([id, ...leb(payload.length)], payload)
}

function encodeVector(items) {
  const out = leb(items.length)
  for (const item of items) append(out, item)
  return out
}

function typeKey(params, results) {
  return `${params.join(',')}:${results.join(',')}`
}

/** Rewrites one large function; returns its new body and the functions outlined from it. */
function outlineFunction(bytes, module, functionIndex, addFunction) {
  const body = module.bodies[functionIndex]
  const type = module.types[module.functionTypes[functionIndex]]
  const { localTypes, groups, groupsStart, codeStart, instructions } = decodeBody(
    bytes,
    body,
    type.params,
  )
  // Every local is passed to each outlined case, so a function with many stays whole.
  const regions =
    localTypes.length > MAXIMUM_LOCALS ? [] : findRegions(instructions, MINIMUM_REGION_BYTES)
  if (regions.length === 0) return { body: bytes.subarray(body.start, body.end), count: 0 }
  // One more i32 local, after the others: the call sites' exit number.
  const code = localTypes.length
  const out = append(leb(groups + 1), bytes.subarray(groupsStart, codeStart))
  out.push(1, I32)
  let position = codeStart
  for (const region of regions) {
    const results = [I32, ...region.writes.map((local) => localTypes[local])]
    const index = addFunction(localTypes, results, encodeOutlinedBody(bytes, instructions, region))
    append(out, bytes.subarray(position, instructions[region.start].start))
    append(out, encodeCallSite(region, localTypes.length, index, code))
    position = instructions[region.end].start
  }
  append(out, bytes.subarray(position, body.end))
  return { body: out, count: regions.length }
}

const MINIMUM_FUNCTION_BYTES = 65536
const MINIMUM_REGION_BYTES = 16
const MAXIMUM_LOCALS = 16

/**
 * Returns a copy of a WebAssembly module in which every function larger than 64 KB has the
 * cases of its switches moved into functions of their own, and how many were moved.
 */
export function outlineLargeFunctions(input) {
  const bytes = Uint8Array.from(input)
  const module = readModule(bytes)
  const types = module.types.map((type) => ({ ...type }))
  const functionTypes = [...module.functionTypes]
  const added = []
  const addFunction = (params, results, body) => {
    let typeIndex = types.findIndex(
      (type) => typeKey(type.params, type.results) === typeKey(params, results),
    )
    if (typeIndex < 0) typeIndex = types.push({ params, results }) - 1
    functionTypes.push(typeIndex)
    added.push(body)
    return module.importedFunctions + functionTypes.length - 1
  }
  let outlined = 0
  const bodies = module.bodies.map((body, index) => {
    if (body.end - body.start < MINIMUM_FUNCTION_BYTES) return bytes.subarray(body.start, body.end)
    const result = outlineFunction(bytes, module, index, addFunction)
    outlined += result.count
    return result.body
  })
  const replaced = {
    1: encodeVector(
      types.map(({ params, results }) => [
        0x60,
        ...leb(params.length),
        ...params,
        ...leb(results.length),
        ...results,
      ]),
    ),
    3: encodeVector(functionTypes.map((index) => leb(index))),
    10: encodeVector([...bodies, ...added].map((code) => append(leb(code.length), code))),
  }
  const out = append([], bytes.subarray(0, 8))
  for (const section of module.sections) {
    const payload = replaced[section.id]
    if (payload === undefined) append(out, bytes.subarray(section.head, section.end))
    else append(out, encodeSection(section.id, payload))
  }
  return { bytes: Uint8Array.from(out), outlined }
}

/** The size in bytes of each function body the module defines, in order. */
export function functionSizes(input) {
  const bytes = Uint8Array.from(input)
  return readModule(bytes).bodies.map((body) => body.end - body.start)
}

/** How many `br_table` instructions the module's function bodies hold. */
export function branchTableCount(input) {
  const bytes = Uint8Array.from(input)
  const module = readModule(bytes)
  let count = 0
  module.bodies.forEach((body, index) => {
    const type = module.types[module.functionTypes[index]]
    for (const { op } of decodeBody(bytes, body, type.params).instructions)
      if (op === BR_TABLE) count++
  })
  return count
}
